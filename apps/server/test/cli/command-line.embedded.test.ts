import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ARBITER_BIN, freePort } from '../support/process.ts';

/**
 * Runs the built `arbiter` in a fresh directory that is also its data dir's parent and its
 * working directory, so anything a command creates (a data dir, a key, a database) shows up.
 * A command that wrongly starts serving is killed after a minute and has no exit code.
 */
function arbiterIn(dir: string, args: string[], env: Record<string, string> = {}) {
  const result = spawnSync(process.execPath, [ARBITER_BIN, ...args], {
    cwd: dir,
    env: {
      ...process.env,
      ARBITER_DATA_DIR: join(dir, 'data'),
      ARBITER_DATABASE_URL: '',
      ARBITER_SESSION_JWKS_URL: '',
      ...env,
    },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const freshDir = () => mkdtempSync(join(tmpdir(), 'arbiter-cli-'));

const COMMANDS = [
  ['serve'],
  ['migrate'],
  ['token'],
  ['pipeline'],
  ['pipeline', 'run'],
  ['reprice'],
  ['backup'],
  ['restore'],
  ['demo'],
  ['capacity'],
  [],
  ['help'],
];

describe('arbiter --help and -h', () => {
  for (const command of COMMANDS) {
    for (const flag of ['--help', '-h']) {
      it(`arbiter ${[...command, flag].join(' ')} prints the usage, exits 0 and touches nothing`, async () => {
        const dir = freshDir();
        const port = await freePort();
        const result = arbiterIn(dir, [...command, flag], { ARBITER_PORT: String(port) });
        expect(result.stderr).toBe('');
        expect(result.code).toBe(0);
        const shown =
          command[0] === 'help' || command.length === 0 ? '<command>' : command.join(' ');
        expect(result.stdout).toContain(
          `Usage: arbiter ${shown === 'pipeline' ? 'pipeline run' : shown}`,
        );
        // No data dir, no key, no database: the directory is as it was made.
        expect(readdirSync(dir)).toEqual([]);
      });
    }
  }

  it('help wins over the rest of the line, and `help <command>` is that command’s usage', () => {
    const dir = freshDir();
    const mixed = arbiterIn(dir, ['token', '--email', 'notanemail', '--bogus', '-h']);
    expect(mixed.code).toBe(0);
    expect(mixed.stdout).toContain('--email E');
    expect(arbiterIn(dir, ['help', 'pipeline', 'run']).stdout).toContain('--json');
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a bad setting does not stop the help', () => {
    const dir = freshDir();
    const result = arbiterIn(dir, ['serve', '--help'], { ARBITER_PORT: 'eighty' });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Usage: arbiter serve');
  });
});

/** A refusal: exit 2, exactly one line on stderr, nothing on stdout, nothing created. */
function refused(args: string[]): string {
  const dir = freshDir();
  const result = arbiterIn(dir, args);
  expect(result.code).toBe(2);
  expect(result.stdout).toBe('');
  expect(result.stderr.split('\n')).toHaveLength(2);
  expect(result.stderr.endsWith('\n')).toBe(true);
  expect(readdirSync(dir)).toEqual([]);
  return result.stderr.trim();
}

describe('arbiter refuses a mistake in one line, naming it', () => {
  it('an unknown command, with the closest one', () => {
    expect(refused(['serv'])).toBe("arbiter: unknown command 'serv'; did you mean serve?");
    expect(refused(['pipline', 'run'])).toBe(
      "arbiter: unknown command 'pipline'; did you mean pipeline?",
    );
    expect(refused(['pipeline', 'rnu'])).toBe(
      "arbiter: pipeline: unknown subcommand 'rnu'; did you mean run?",
    );
    expect(refused(['frobnicate'])).toBe(
      "arbiter: unknown command 'frobnicate'; the commands are serve, migrate, token, pipeline, reprice, backup, restore, demo, mcp, capacity, help",
    );
  });

  it('a misspelled option, with the closest one', () => {
    expect(refused(['pipeline', 'run', '--dya', '2026-11-20'])).toBe(
      "arbiter: pipeline run: unknown option '--dya'; did you mean --day?",
    );
    expect(refused(['token', '--emial', 'a@b.co', '--org', 'o'])).toBe(
      "arbiter: token: unknown option '--emial'; did you mean --email?",
    );
    expect(refused(['backup', '--zzz'])).toBe(
      "arbiter: backup: unknown option '--zzz'; its options are --out",
    );
  });

  it('an unknown option to serve or migrate, which take none', () => {
    for (const command of ['serve', 'migrate']) {
      expect(refused([command, '--port', '9000'])).toBe(
        `arbiter: ${command}: unknown option '--port': ${command} takes no options; its settings are ARBITER_* environment variables (README: Settings)`,
      );
    }
    expect(refused(['serve', 'now'])).toBe("arbiter: serve: unexpected argument 'now'");
  });

  it('an invalid or missing value', () => {
    expect(refused(['pipeline', 'run', '--day', '2026-13-45'])).toBe(
      'arbiter: pipeline run: --day "2026-13-45" is not a calendar day as YYYY-MM-DD',
    );
    expect(refused(['pipeline', 'run', '--day', '2026-02-30'])).toContain('is not a calendar day');
    expect(refused(['pipeline', 'run', '--day'])).toBe(
      'arbiter: pipeline run: --day needs a value (--day YYYY-MM-DD)',
    );
    expect(refused(['pipeline', 'run', '--json=yes'])).toBe(
      'arbiter: pipeline run: --json takes no value',
    );
    expect(refused(['token', '--email', 'notanemail', '--org', 'o'])).toBe(
      'arbiter: token: --email "notanemail" is not an email address',
    );
    expect(refused(['token', '--email', 'a@b.co', '--org', 'o', '--role', 'boss'])).toBe(
      'arbiter: token: --role "boss" is not one of member, admin, owner',
    );
    expect(refused(['token', '--org', 'o'])).toBe('arbiter: token: needs --email E');
    expect(refused(['restore'])).toBe('arbiter: restore: needs --from FILE');
    expect(refused(['reprice', '--from', '2026-02-30'])).toBe(
      'arbiter: reprice: --from "2026-02-30" is not a calendar day as YYYY-MM-DD',
    );
    expect(refused(['reprice', '--from', '2026-03-02', '--to', '2026-03-01'])).toBe(
      'arbiter: reprice: --from 2026-03-02 is after --to 2026-03-01',
    );
    expect(refused(['demo', '--url', 'nope'])).toBe(
      'arbiter: demo: --url "nope" is not an http or https URL',
    );
  });
});

describe('arbiter reprice on the embedded database', () => {
  it('opens the data dir itself, says what it would change, and refuses an unknown org', () => {
    const dir = freshDir();
    const dry = arbiterIn(dir, ['reprice', '--dry-run', '--from', '2026-01-01']);
    expect(dry.stderr).toBe('');
    expect(dry.stdout).toBe(
      'would re-price 0 of 0 model calls priced by the server, in 0 orgs (cost +$0)\n',
    );
    expect(dry.code).toBe(0);
    const unknown = arbiterIn(dir, ['reprice', '--org', 'nobody']);
    expect(unknown.stderr).toBe('arbiter: reprice: no org nobody\n');
    expect(unknown.code).toBe(1);
  }, 180_000);
});
