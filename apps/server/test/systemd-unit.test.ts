import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * deploy/systemd/arbiter.service, installed as docs/operations.md says (its paths pointed at
 * where the repository is: here, this checkout, and this test's Node), passes
 * `systemd-analyze verify` without a warning. scripts/test.sh installs systemd-analyze
 * (scripts/ensure-systemd.sh).
 */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url)).replace(/\/$/, '');
const UNIT = readFileSync(join(ROOT, 'deploy', 'systemd', 'arbiter.service'), 'utf8');

/** The unit as an operator installs it from a checkout at `root`. */
function installedAt(root: string): string {
  return UNIT.replaceAll('/opt/arbiter', root).replaceAll('/usr/bin/node', process.execPath);
}

function verify(unit: string) {
  const dir = mkdtempSync(join(tmpdir(), 'arbiter-unit-'));
  const file = join(dir, 'arbiter.service');
  writeFileSync(file, unit);
  const run = spawnSync('systemd-analyze', ['verify', '--man=no', file], { encoding: 'utf8' });
  if (run.error)
    throw new Error(
      `systemd-analyze is missing: run scripts/ensure-systemd.sh (${run.error.message})`,
    );
  return { code: run.status, output: `${run.stdout}${run.stderr}`.trim() };
}

/** The value of the unit's `key=` lines, in order. */
function values(unit: string, key: string): string[] {
  return [...unit.matchAll(new RegExp(`^${key}=(.*)$`, 'gm'))].map((m) => m[1] as string);
}

describe('the systemd unit', () => {
  const unit = installedAt(ROOT);

  it('passes systemd-analyze verify, pointed at this checkout', () => {
    expect(verify(unit)).toEqual({ code: 0, output: '' });
    const [command, script] = (values(unit, 'ExecStart')[0] ?? '').split(' ');
    expect([command, script]).toEqual([process.execPath, join(ROOT, 'apps/server/bin/arbiter.js')]);
    expect(existsSync(script as string)).toBe(true);
    expect(existsSync(values(unit, 'WorkingDirectory')[0] as string)).toBe(true);
  });

  it('is refused by the same check when a path is wrong, or a value malformed', () => {
    expect(verify(unit.replace(`${process.execPath} `, '/nonexistent/node ')).code).toBe(1);
    expect(verify(unit.replace('TimeoutStopSec=20', 'TimeoutStopSec=soon')).output).toContain(
      'Failed to parse',
    );
  });

  it('stops with SIGTERM and waits longer than the shutdown grace it sets', () => {
    expect(values(unit, 'KillSignal')).toEqual(['SIGTERM']);
    const grace = values(unit, 'Environment')
      .map((v) => /^ARBITER_SHUTDOWN_GRACE_SECONDS=(\d+)$/.exec(v)?.[1])
      .find((v) => v !== undefined);
    expect(Number(values(unit, 'TimeoutStopSec')[0])).toBeGreaterThan(Number(grace));
  });

  it('runs confined: its own user, no new privileges, read-only but for the data dir', () => {
    const dataDir = values(unit, 'Environment')
      .map((v) => /^ARBITER_DATA_DIR=(.+)$/.exec(v)?.[1])
      .find((v) => v !== undefined);
    expect({
      user: values(unit, 'User'),
      noNewPrivileges: values(unit, 'NoNewPrivileges'),
      protectSystem: values(unit, 'ProtectSystem'),
      readWrite: values(unit, 'ReadWritePaths'),
      restart: values(unit, 'Restart'),
      environmentFile: values(unit, 'EnvironmentFile'),
    }).toEqual({
      user: ['arbiter'],
      noNewPrivileges: ['true'],
      protectSystem: ['strict'],
      readWrite: [dataDir],
      restart: ['on-failure'],
      environmentFile: ['/etc/arbiter/arbiter.env'],
    });
  });
});
