import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
// @ts-expect-error: the bin's plain JavaScript module has no declarations.
import { codeCacheFile, DEFAULT_DATA_DIR } from '../bin/code-cache.js';
import { SettingsSchema } from '../src/settings-schema.ts';
import { runCli } from './support/process.ts';

const CODE_CACHE = new URL('../bin/code-cache.js', import.meta.url).href;

// A script shaped like the build: CommonJS, its own folder by __dirname, Node's modules by
// require, and an exit code the environment chooses after the script's top level has run.
const SCRIPT = `
const { basename } = require('node:path');
const { EOL } = require('node:os');
function sum(xs) { return xs.reduce((a, b) => a + b, 0); }
setImmediate(() => {
  process.stdout.write(JSON.stringify({ folder: basename(__dirname), sum: sum([1, 2, 3]), eol: EOL }));
  if (process.env.FAIL === '1') process.exitCode = 1;
});
`;

let dir: string;
let bundle: string;
let dataDir: string;
let cacheFile: string;

/** Runs the script through runWithCodeCache in a process of its own: what it printed, and how the stored code was met. */
function run(env: Record<string, string> = {}) {
  const driver = `import { runWithCodeCache } from ${JSON.stringify(CODE_CACHE)};
process.stderr.write(runWithCodeCache(process.argv[1], process.argv[2]));`;
  const result = spawnSync(
    process.execPath,
    ['--input-type=module', '-e', driver, bundle, cacheFile],
    { env: { ...process.env, ...env }, encoding: 'utf8' },
  );
  return { code: result.status, output: JSON.parse(result.stdout), outcome: result.stderr };
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'arbiter-code-cache-'));
  mkdirSync(join(dir, 'build'));
  bundle = join(dir, 'build', 'cli.cjs');
  writeFileSync(bundle, SCRIPT);
  dataDir = join(dir, 'data');
  mkdirSync(dataDir);
  cacheFile = join(dataDir, 'cache', 'code-serve-aaaa.bin');
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('running the build with its stored code', () => {
  it('stores the code at a successful exit and uses it on the next run, which behaves the same', () => {
    const first = run();
    expect(first).toMatchObject({ code: 0, outcome: 'absent' });
    expect(first.output).toEqual({ folder: 'build', sum: 6, eol: '\n' });
    expect(existsSync(cacheFile)).toBe(true);

    const second = run();
    expect(second).toMatchObject({ code: 0, outcome: 'used', output: first.output });
  });

  it('compiles as if there were none when V8 refuses the stored code, and stores new code', () => {
    mkdirSync(join(dataDir, 'cache'));
    writeFileSync(cacheFile, Buffer.alloc(4096, 7));
    expect(run()).toMatchObject({ code: 0, outcome: 'rejected', output: { sum: 6 } });
    expect(run()).toMatchObject({ code: 0, outcome: 'used', output: { sum: 6 } });
  });

  it('stores nothing for a command that failed', () => {
    expect(run({ FAIL: '1' })).toMatchObject({ code: 1, outcome: 'absent' });
    expect(existsSync(join(dataDir, 'cache'))).toBe(false);
  });

  it('makes no data dir: without one the code is not stored', () => {
    rmSync(dataDir, { recursive: true });
    expect(run()).toMatchObject({ code: 0, outcome: 'absent' });
    expect(existsSync(dataDir)).toBe(false);
  });

  it("replaces the same command's code of another build, and keeps other commands' and files", () => {
    mkdirSync(join(dataDir, 'cache'));
    for (const name of ['code-serve-old.bin', 'code-token-bbbb.bin', 'openapi-cccc.json']) {
      writeFileSync(join(dataDir, 'cache', name), 'x');
    }
    run();
    expect(readdirSync(join(dataDir, 'cache')).sort()).toEqual([
      'code-serve-aaaa.bin',
      'code-token-bbbb.bin',
      'openapi-cccc.json',
    ]);
  });
});

describe('where the code is stored', () => {
  const flags = '--wasm-tiering-budget=180000000';
  beforeEach(() => writeFileSync(join(dir, 'build', 'build-id'), 'build-one\n'));

  it("is the data dir's cache folder, named by command, build, Node and flags", () => {
    const serve = codeCacheFile(bundle, ['serve'], { ARBITER_DATA_DIR: dataDir }, flags);
    expect(serve).toMatch(
      new RegExp(`^${join(dataDir, 'cache', 'code-serve-')}[0-9a-f]{32}\\.bin$`),
    );
    const token = codeCacheFile(
      bundle,
      ['token', '--org', 'o'],
      { ARBITER_DATA_DIR: dataDir },
      flags,
    );
    expect(token).toMatch(/code-token-[0-9a-f]{32}\.bin$/);
    expect(codeCacheFile(bundle, ['serve'], { ARBITER_DATA_DIR: dataDir }, '')).not.toBe(serve);
    writeFileSync(join(dir, 'build', 'build-id'), 'build-two\n');
    expect(codeCacheFile(bundle, ['serve'], { ARBITER_DATA_DIR: dataDir }, flags)).not.toBe(serve);
  });

  it("follows the settings' data dir: relative to the working directory, and its default", () => {
    const setting = SettingsSchema.properties.ARBITER_DATA_DIR as unknown as { default: string };
    expect(DEFAULT_DATA_DIR).toBe(setting.default);
    expect(codeCacheFile(bundle, ['serve'], {}, flags, '/srv/app')).toMatch(
      /^\/srv\/app\/\.arbiter\/cache\/code-serve-/,
    );
    expect(codeCacheFile(bundle, ['serve'], { ARBITER_DATA_DIR: 'd' }, flags, '/srv')).toMatch(
      /^\/srv\/d\/cache\//,
    );
  });

  it('is none for other commands, for a help, and for a build without an identity', () => {
    const env = { ARBITER_DATA_DIR: dataDir };
    expect(codeCacheFile(bundle, ['pipeline', 'run'], env, flags)).toBeNull();
    expect(codeCacheFile(bundle, ['serve', '--help'], env, flags)).toBeNull();
    expect(codeCacheFile(bundle, ['token', '-h'], env, flags)).toBeNull();
    expect(codeCacheFile(bundle, [], env, flags)).toBeNull();
    rmSync(join(dir, 'build', 'build-id'));
    expect(codeCacheFile(bundle, ['serve'], env, flags)).toBeNull();
  });
});

describe('the arbiter command', () => {
  it('stores the code of `arbiter token` in the data dir, and its next token is as good', () => {
    const env = {
      ARBITER_DATA_DIR: dataDir,
      ARBITER_DATABASE_URL: '',
      ARBITER_SESSION_JWKS_URL: '',
    };
    const args = ['token', '--email', 'cache@example.com', '--org', 'cache-org'];
    const first = runCli(args, env);
    expect(first.code).toBe(0);
    expect(
      readdirSync(join(dataDir, 'cache')).filter((n) => n.startsWith('code-token-')),
    ).toHaveLength(1);
    const second = runCli(args, env);
    expect(second.code).toBe(0);
    expect(second.stdout.split('.')).toHaveLength(3);
    expect(second.stdout.split('.')[0]).toBe(first.stdout.split('.')[0]);
  });
});
