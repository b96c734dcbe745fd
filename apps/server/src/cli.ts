import { parseArgs } from 'node:util';
import { mintDevToken } from './auth/mint-dev-token.ts';
import { type Config, ConfigError, isDevelopmentSessions, loadConfig } from './config.ts';
import { openDatabase } from './db/connect.ts';
import { serve } from './main.ts';

const USAGE = `Usage: arbiter <command> [options]

Commands:
  serve                      start the API server (settings from ARBITER_* variables)
  migrate                    apply database migrations and exit
  token --email E --org O [--role member|admin|owner] [--name N]
                             print a development session token (only without ARBITER_SESSION_JWKS_URL)
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
    throw error;
  }
}

const code = await main(process.argv.slice(2));
if (code >= 0) process.exit(code);
