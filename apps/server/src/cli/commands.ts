import type { CommandSpec } from './command-spec.ts';

const SETTINGS = 'Settings come from the ARBITER_* environment variables (README: Settings).';

/** A command without options. */
const withoutOptions = (name: string, summary: string, description: string): CommandSpec => ({
  name,
  synopsis: '',
  summary,
  description,
  options: {},
});

/** A command whose one option, `--<option> FILE`, names a file. */
function withFile(
  name: string,
  option: string,
  text: { summary: string; description: string; file: string },
): CommandSpec {
  return {
    name,
    synopsis: `--${option} FILE`,
    summary: text.summary,
    description: text.description,
    options: { [option]: { type: 'string', value: 'FILE', description: text.file } },
  };
}

export const SERVE = withoutOptions(
  'serve',
  'start the API server',
  `Start the API server (and apply the database migrations). ${SETTINGS}`,
);

export const MIGRATE = withoutOptions(
  'migrate',
  'apply the database migrations and exit',
  `Apply the database migrations and exit. ${SETTINGS}`,
);

export const TOKEN: CommandSpec = {
  name: 'token',
  synopsis: '--email E --org O [--role member|admin|owner] [--name N]',
  summary: 'print a development session token',
  description:
    'Print a development session token, signed with the data dir’s development key. Only without ARBITER_SESSION_JWKS_URL: with an identity provider, sessions come from it.',
  options: {
    email: { type: 'string', value: 'E', description: 'the user’s email (required)' },
    org: {
      type: 'string',
      value: 'O',
      description: 'the org’s id, 1 to 128 characters (required)',
    },
    role: { type: 'string', value: 'ROLE', description: 'member, admin or owner (default: admin)' },
    name: {
      type: 'string',
      value: 'N',
      description: 'the display name (default: the email’s local part)',
    },
  },
};

export const PIPELINE_RUN: CommandSpec = {
  name: 'pipeline run',
  synopsis: '[--day YYYY-MM-DD] [--json]',
  summary: 'run the nightly analysis for one UTC day',
  description:
    'Run the nightly analysis for one UTC day and print a summary of it. On the embedded database it asks the server running on the data dir; otherwise it opens the database itself.',
  options: {
    day: { type: 'string', value: 'YYYY-MM-DD', description: 'the UTC day (default: yesterday)' },
    json: { type: 'boolean', description: 'print the run as one JSON document instead' },
  },
};

export const BACKUP = withFile('backup', 'out', {
  summary: 'write a backup of the embedded database to FILE',
  description:
    'Write a consistent backup of the embedded database to FILE (gzipped). The server running on the data dir makes it, or this command when none runs; refused with ARBITER_DATABASE_URL.',
  file: 'where to write it (required)',
});

export const RESTORE = withFile('restore', 'from', {
  summary: 'restore such a backup into an empty ARBITER_DATA_DIR',
  description:
    'Restore a backup into ARBITER_DATA_DIR, which must be empty or absent (otherwise refused, nothing changed); start `arbiter serve` on it afterwards.',
  file: 'the backup (required)',
});

export const DEMO: CommandSpec = {
  name: 'demo',
  synopsis: '[--url URL]',
  summary: 'seed the demo org on the running local server and run the pipeline',
  description:
    'Seed the arbiter-demo org on the running local server (two experiments, keys, today’s traffic through the ingest API), run the pipeline, ship the winner the first experiment’s results recommend and print where the results are. Safe to repeat; refused off loopback.',
  options: {
    url: {
      type: 'string',
      value: 'URL',
      description:
        'the server (default: the one running on the data dir, else ARBITER_PORT on 127.0.0.1)',
    },
  },
};

export const MCP: CommandSpec = {
  name: 'mcp',
  synopsis: '--url URL',
  summary: 'serve the MCP server of the API at URL over stdio, for coding agents',
  description:
    'Serve the MCP server of the Arbiter API at URL over stdio, for an agent that launches its servers itself: the tools, resources and prompt of URL/mcp, called with the org’s secret key from ARBITER_API_KEY or a session token from ARBITER_SESSION_TOKEN (docs/integrations/mcp.md). Runs until stdin closes.',
  options: {
    url: {
      type: 'string',
      value: 'URL',
      description: 'the API server, e.g. https://arbiter.example.com (required)',
    },
  },
};

export const REPRICE: CommandSpec = {
  name: 'reprice',
  synopsis: '[--org ID] [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--dry-run]',
  summary: 'price stored model calls again under the current price rows',
  description:
    'Price again, under the current price rows (the built-in table and each org’s own), the stored model calls whose cost the server gave (never a cost the application sent), and move their costs in the daily aggregates, so results read what calls priced so from the start would. In batches, on the database and every shard; audited per org. On the embedded database, stop the server first (docs/model-prices.md).',
  options: {
    org: {
      type: 'string',
      value: 'ID',
      description: 'one org, by its id or external id (default: every org)',
    },
    from: {
      type: 'string',
      value: 'YYYY-MM-DD',
      description: 'the first UTC day of calls (default: the first stored)',
    },
    to: {
      type: 'string',
      value: 'YYYY-MM-DD',
      description: 'the last UTC day of calls, included (default: the last stored)',
    },
    'dry-run': { type: 'boolean', description: 'count what would change and change nothing' },
  },
};

const whole = (what: string) => ({
  type: 'string' as const,
  value: 'N',
  description: `${what} (required)`,
});

export const CAPACITY: CommandSpec = {
  name: 'capacity',
  synopsis:
    '--events-per-second N --users N --experiments N --metrics N --retention-days N [--kafka] [--object-store]',
  summary: 'print the processes, shards, cores, memory and disk a target needs',
  description:
    'Print a capacity plan for a target: API processes, Kafka brokers, partitions and fold workers, PostgreSQL shards and the object store, each with its cores, memory and disk, and the nightly analysis per shard. The arithmetic and its measured constants are in docs/capacity.md. Reads no setting and touches nothing.',
  options: {
    'events-per-second': whole('accepted events a second, sustained'),
    users: whole('users across the experiments'),
    experiments: whole('experiments running at once'),
    metrics: whole('metrics an experiment'),
    'retention-days': whole('days events and aggregates are kept'),
    kafka: { type: 'boolean', description: 'the Kafka log in front of the database' },
    'object-store': { type: 'boolean', description: 'model text in an S3-compatible store' },
  },
};

/** Every command as typed after `arbiter`, in the order `arbiter --help` lists them. */
export const COMMANDS: readonly CommandSpec[] = [
  SERVE,
  MIGRATE,
  TOKEN,
  PIPELINE_RUN,
  REPRICE,
  BACKUP,
  RESTORE,
  DEMO,
  MCP,
  CAPACITY,
];

/** `arbiter --help`. */
export function commandsUsage(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length)) + 3;
  const rows = COMMANDS.map((c) => `  ${c.name.padEnd(width)}${c.summary}`);
  return `Usage: arbiter <command> [options]\n\nCommands:\n${rows.join('\n')}\n  ${'help [command]'.padEnd(width)}show the commands, or one command's usage\n\n'arbiter <command> --help' shows a command's options. ${SETTINGS}\n`;
}
