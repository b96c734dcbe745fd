import { parseArgs } from 'node:util';
import { previousUtcDay, runNightly } from './analysis/nightly.ts';
import { mintDevToken } from './auth/mint-dev-token.ts';
import { describeFailure } from './cli-failure.ts';
import { type Config, ConfigError, isDevelopmentSessions, loadConfig } from './config.ts';
import { createContext } from './context.ts';
import { readControlFile } from './control-file.ts';
import { openDatabase } from './db/connect.ts';
import { CONTROL_HEADER } from './http/platform-owner-auth.ts';
import { serve } from './main.ts';

const USAGE = `Usage: arbiter <command> [options]

Commands:
  serve                      start the API server (settings from ARBITER_* variables)
  migrate                    apply database migrations and exit
  token --email E --org O [--role member|admin|owner] [--name N]
                             print a development session token (only without ARBITER_SESSION_JWKS_URL)
  pipeline run [--day YYYY-MM-DD]
                             run the nightly analysis for one UTC day (default: yesterday); on the
                             embedded database it asks the running server instead of opening it
`;

async function migrate(config: Config): Promise<void> {
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
  const running = config.databaseUrl === null ? readControlFile(config.dataDir) : null;
  if (running) {
    let res: Response;
    try {
      res = await fetch(`${running.url}/v1/admin/pipeline/run`, {
        method: 'POST',
        headers: { [CONTROL_HEADER]: running.token, 'content-type': 'application/json' },
        body: JSON.stringify(values.day === undefined ? {} : { day: values.day }),
      });
    } catch (error) {
      const cause = ((error as { cause?: Error }).cause ?? (error as Error)).message;
      throw new Error(
        `the server running on this data dir (process ${running.pid}, ${running.url}) did not answer: ${cause}`,
      );
    }
    const body = await res.text();
    if (!res.ok) throw new UsageError(`the running server answered ${res.status}: ${body}`);
    process.stdout.write(`${body}\n`);
    return;
  }
  const ctx = await createContext(config);
  try {
    const summary = await runNightly(ctx, values.day ?? previousUtcDay(new Date()), ctx.judgeStep);
    process.stdout.write(`${JSON.stringify(summary)}\n`);
  } finally {
    await ctx.close();
  }
}

class UsageError extends Error {}

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    const config = loadConfig(process.env);
    switch (command) {
      case 'serve':
        await serve(config);
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
