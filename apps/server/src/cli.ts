import { parseArgs } from 'node:util';
import type { NightlySummary } from './analysis/nightly.ts';
import { explainRun } from './analysis/run-explanation.ts';
import { mintDevToken } from './auth/mint-dev-token.ts';
import { describeFailure } from './cli-failure.ts';
import { type Config, ConfigError, isDevelopmentSessions, loadConfig } from './config.ts';
import { DemoError } from './demo/demo-api.ts';
import { systemClock } from './kernel/ports.ts';
import { previousUtcDay } from './kernel/utc-day.ts';

// The server, the database and the pipeline are imported by the commands that use them, so a
// quick command (token, help) does not load Fastify, PGlite and the rest.

const USAGE = `Usage: arbiter <command> [options]

Commands:
  serve                      start the API server (settings from ARBITER_* variables)
  migrate                    apply database migrations and exit
  token --email E --org O [--role member|admin|owner] [--name N]
                             print a development session token (only without ARBITER_SESSION_JWKS_URL)
  pipeline run [--day YYYY-MM-DD]
                             run the nightly analysis for one UTC day (default: yesterday); on the
                             embedded database it asks the running server instead of opening it
  backup --out FILE          write a consistent backup of the embedded database to FILE (gzipped);
                             the running server makes it, or this command when none runs
  restore --from FILE        restore such a backup into ARBITER_DATA_DIR, which must be empty or absent
  demo [--url URL]           seed the demo org (two experiments, keys, a day of traffic) on the running
                             local server, run the pipeline and print where the results are
`;

async function migrate(config: Config): Promise<void> {
  const { openDatabase } = await import('./db/connect.ts');
  const handle = await openDatabase(
    config.databaseUrl === null
      ? { kind: 'pglite', dataDir: config.dataDir }
      : { kind: 'postgres', url: config.databaseUrl },
  );
  await handle.close();
  process.stdout.write(`migrations applied (${handle.kind})\n`);
}

async function token(config: Config, args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      email: { type: 'string' },
      org: { type: 'string' },
      role: { type: 'string', default: 'admin' },
      name: { type: 'string' },
    },
  });
  if (!values.email || !values.org) throw new UsageError('token needs --email and --org');
  if (!['member', 'admin', 'owner'].includes(values.role ?? ''))
    throw new UsageError('--role is member, admin or owner');
  if (!isDevelopmentSessions(config)) {
    throw new UsageError(
      'ARBITER_SESSION_JWKS_URL is set: sessions come from your identity provider, not from this command',
    );
  }
  const jwt = await mintDevToken({
    dataDir: config.dataDir,
    issuer: config.sessionIssuer,
    email: values.email,
    org: values.org,
    role: values.role as string,
    ...(values.name === undefined ? {} : { name: values.name }),
  });
  process.stdout.write(`${jwt}\n`);
}

async function pipeline(config: Config, args: string[]): Promise<void> {
  const [sub, ...rest] = args;
  if (sub !== 'run') throw new UsageError('pipeline needs a subcommand: run');
  const { values } = parseArgs({ args: rest, options: { day: { type: 'string' } } });
  if (values.day !== undefined && !/^\d{4}-\d\d-\d\d$/.test(values.day))
    throw new UsageError('--day is YYYY-MM-DD');
  const { PipelineRequestError, requestPipelineRun } = await import('./pipeline-request.ts');
  try {
    const summary = await requestPipelineRun(
      config,
      values.day ?? previousUtcDay(systemClock.now()),
    );
    process.stdout.write(`${JSON.stringify(summary)}\n`);
    explain(summary, values.day === undefined);
  } catch (error) {
    if (error instanceof PipelineRequestError) throw new UsageError(error.message);
    throw error;
  }
}

/** The backup commands' refusals are one sentence (exit 1), not usage mistakes. */
async function backupCommand(config: Config, command: 'backup' | 'restore', args: string[]) {
  const { values } = parseArgs({
    args,
    options: { out: { type: 'string' }, from: { type: 'string' } },
  });
  if (command === 'backup' && !values.out) throw new UsageError('backup needs --out FILE');
  if (command === 'restore' && !values.from) throw new UsageError('restore needs --from FILE');
  const { BackupError, restoreBackup, writeBackup } = await import('./backup-request.ts');
  try {
    if (command === 'backup') {
      const out = values.out as string;
      const written = await writeBackup(config, out);
      const by =
        written.source === 'data dir'
          ? `from the data dir ${config.dataDir} (no server runs on it)`
          : `by the running server (process ${written.source.server})`;
      process.stdout.write(`backup written to ${out} (${written.bytes} bytes), made ${by}\n`);
    } else {
      const from = values.from as string;
      const restored = await restoreBackup(config, from);
      process.stdout.write(
        `restored ${from} into ${config.dataDir}: ${restored.experiments} experiments, ${restored.events} stored events; start the server on it with ARBITER_DATA_DIR=${config.dataDir}\n`,
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
async function demo(config: Config, args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { url: { type: 'string' } } });
  const { runDemo } = await import('./demo/run-demo.ts');
  const { PipelineRequestError } = await import('./pipeline-request.ts');
  try {
    await runDemo(config, {
      ...(values.url === undefined ? {} : { url: values.url }),
      write: (line) => process.stdout.write(`${line}\n`),
    });
    return 0;
  } catch (error) {
    if (!(error instanceof DemoError || error instanceof PipelineRequestError)) throw error;
    process.stderr.write(`arbiter: demo: ${error.message}\n`);
    return 1;
  }
}

/** The summary in sentences, on stderr so stdout stays one JSON document. */
function explain(summary: NightlySummary, dayWasDefault: boolean): void {
  process.stderr.write(`${explainRun(summary, dayWasDefault).join('\n')}\n`);
}

class UsageError extends Error {}

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    const config = loadConfig(process.env);
    switch (command) {
      case 'serve':
        await (await import('./main.ts')).serve(config);
        return -1;
      case 'migrate':
        await migrate(config);
        return 0;
      case 'token':
        await token(config, rest);
        return 0;
      case 'pipeline':
        await pipeline(config, rest);
        return 0;
      case 'demo':
        return await demo(config, rest);
      case 'backup':
      case 'restore':
        return await backupCommand(config, command, rest);
      default:
        process.stderr.write(USAGE);
        return command === undefined || command === 'help' || command === '--help' ? 0 : 2;
    }
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`arbiter: invalid setting ${error.message}\n`);
      return 2;
    }
    if (error instanceof UsageError) {
      process.stderr.write(`arbiter: ${error.message}\n\n${USAGE}`);
      return 2;
    }
    process.stderr.write(`arbiter: ${describeFailure(command ?? 'arbiter', error)}\n`);
    return 1;
  }
}

const code = await main(process.argv.slice(2));
if (code >= 0) process.exit(code);
