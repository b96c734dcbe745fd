import { explainRun } from '../analysis/decision/run-explanation.ts';
import { type Config, isDevelopmentSessions } from '../config.ts';
import { DemoError } from '../demo/demo-api.ts';
import { mintDevToken } from '../domain/identity/mint-dev-token.ts';
import { systemClock } from '../kernel/ports.ts';
import { previousUtcDay } from '../kernel/utc-day.ts';
import type { Values } from './parse-command-line.ts';
import { UsageError } from './usage-error.ts';
import { checkedDay, checkedEmail, checkedRole, checkedText, checkedUrl } from './values.ts';

// The server, the database and the pipeline are imported by the commands that use them, so a
// quick command (token, help) does not load Fastify, PGlite and the rest. Each returns its exit
// code: 0, or 1 for a refusal said in one sentence; -1 for `serve`, which keeps running.

const text = (values: Values, name: string) => values[name] as string | undefined;

/** A required option that is missing: a usage mistake. */
function required(command: string, values: Values, name: string, what: string): string {
  const value = text(values, name);
  if (value === undefined) throw new UsageError(command, `needs --${name} ${what}`);
  return value;
}

/** Migrates the database and every shard of ARBITER_SHARD_URLS, and records or checks the shard set. */
async function migrate(config: Config): Promise<number> {
  const { openDatabase } = await import('../db/connect.ts');
  const { openConfiguredShards, shardSetFor } = await import('../db/shards/open-shards.ts');
  const handle = await openDatabase(
    config.databaseUrl === null
      ? { kind: 'pglite', dataDir: config.dataDir }
      : { kind: 'postgres', url: config.databaseUrl },
  );
  try {
    const shards = await openConfiguredShards(config, () => {});
    try {
      await shardSetFor(handle, shards);
    } finally {
      await Promise.all(shards.map((s) => s.handle.close()));
    }
  } finally {
    await handle.close();
  }
  const onShards = config.shardUrls.length === 0 ? '' : ` and ${config.shardUrls.length} shards`;
  process.stdout.write(`migrations applied (${handle.kind}${onShards})\n`);
  return 0;
}

async function token(config: Config, values: Values): Promise<number> {
  const email = checkedEmail('token', required('token', values, 'email', 'E'));
  const org = checkedText('token', 'org', required('token', values, 'org', 'O'), 128);
  const role = checkedRole('token', text(values, 'role') ?? 'admin');
  const name = text(values, 'name');
  if (name !== undefined) checkedText('token', 'name', name, 200);
  if (!isDevelopmentSessions(config)) {
    throw new UsageError(
      'token',
      'ARBITER_SESSION_JWKS_URL is set: sessions come from your identity provider, not from this command',
    );
  }
  const jwt = await mintDevToken({
    dataDir: config.dataDir,
    issuer: config.sessionIssuer,
    email,
    org,
    role,
    ...(name === undefined ? {} : { name }),
  });
  process.stdout.write(`${jwt}\n`);
  return 0;
}

/** Sentences by default; the run as one JSON document with `--json`. */
async function pipelineRun(config: Config, values: Values): Promise<number> {
  const given = text(values, 'day');
  const day =
    given === undefined ? previousUtcDay(systemClock.now()) : checkedDay('pipeline run', given);
  const { PipelineRequestError, requestPipelineRun } = await import('../pipeline-request.ts');
  try {
    const summary = await requestPipelineRun(config, day);
    const out =
      values.json === true ? [JSON.stringify(summary)] : explainRun(summary, given === undefined);
    process.stdout.write(`${out.join('\n')}\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof PipelineRequestError)) throw error;
    process.stderr.write(`arbiter: pipeline run: ${error.message}\n`);
    return 1;
  }
}

/** The backup commands' refusals are one sentence (exit 1), not usage mistakes. */
async function backupOrRestore(config: Config, command: string, values: Values): Promise<number> {
  const file =
    command === 'backup'
      ? required(command, values, 'out', 'FILE')
      : required(command, values, 'from', 'FILE');
  const { BackupError, restoreBackup, writeBackup } = await import('../backup-request.ts');
  try {
    if (command === 'backup') {
      const written = await writeBackup(config, file);
      const by =
        written.source === 'data dir'
          ? `from the data dir ${config.dataDir} (no server runs on it)`
          : `by the running server (process ${written.source.server})`;
      process.stdout.write(`backup written to ${file} (${written.bytes} bytes), made ${by}\n`);
    } else {
      const restored = await restoreBackup(config, file);
      process.stdout.write(
        `restored ${file} into ${config.dataDir}: ${restored.experiments} experiments, ${restored.events} stored events; start the server on it with ARBITER_DATA_DIR=${config.dataDir}\n`,
      );
    }
    return 0;
  } catch (error) {
    if (!(error instanceof BackupError)) throw error;
    process.stderr.write(`arbiter: ${command}: ${error.message}\n`);
    return 1;
  }
}

/** A demo that cannot run says why in one sentence (exit 1); it is not a usage mistake. */
async function demo(config: Config, values: Values): Promise<number> {
  const url = text(values, 'url');
  if (url !== undefined) checkedUrl('demo', 'url', url);
  const { runDemo } = await import('../demo/run-demo.ts');
  const { PipelineRequestError } = await import('../pipeline-request.ts');
  try {
    await runDemo(config, {
      ...(url === undefined ? {} : { url }),
      write: (line) => process.stdout.write(`${line}\n`),
    });
    return 0;
  } catch (error) {
    if (!(error instanceof DemoError || error instanceof PipelineRequestError)) throw error;
    process.stderr.write(`arbiter: demo: ${error.message}\n`);
    return 1;
  }
}

/**
 * `arbiter mcp`: stdio joined to URL/mcp with the credential of the environment, the secret key
 * (ARBITER_API_KEY) else a session token (ARBITER_SESSION_TOKEN). Nothing but MCP goes to stdout.
 */
async function mcp(
  values: Values,
  env: Readonly<Record<string, string | undefined>>,
): Promise<number> {
  const url = checkedUrl('mcp', 'url', required('mcp', values, 'url', 'URL'));
  const key = env.ARBITER_API_KEY;
  const token = env.ARBITER_SESSION_TOKEN;
  const headers: Record<string, string> =
    key !== undefined && key !== ''
      ? { 'x-api-key': key }
      : token !== undefined && token !== ''
        ? { authorization: `Bearer ${token}` }
        : {};
  if (Object.keys(headers).length === 0)
    throw new UsageError(
      'mcp',
      'needs the org’s secret key in ARBITER_API_KEY or a session token in ARBITER_SESSION_TOKEN',
    );
  const { bridge, remoteTransport } = await import('../mcp/bridge.ts');
  const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
  await bridge(new StdioServerTransport(), remoteTransport(url, headers));
  return 0;
}

/** Runs the command `name` (a CommandSpec's name) with its parsed options. */
export async function runCommand(
  name: string,
  config: Config,
  values: Values,
  env: Readonly<Record<string, string | undefined>> = {},
): Promise<number> {
  switch (name) {
    case 'serve':
      await (await import('../main.ts')).serve(config);
      return -1;
    case 'migrate':
      return await migrate(config);
    case 'token':
      return await token(config, values);
    case 'pipeline run':
      return await pipelineRun(config, values);
    case 'reprice':
      return await (await import('./reprice.ts')).reprice(config, values);
    case 'backup':
    case 'restore':
      return await backupOrRestore(config, name, values);
    case 'mcp':
      return await mcp(values, env);
    default:
      return await demo(config, values);
  }
}
