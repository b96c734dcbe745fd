import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/connect.ts';

/** Every path under `root` with a mode other than 0700 (directories) or 0600 (files). */
function loose(root: string): string[] {
  const out: string[] = [];
  const walk = (path: string) => {
    const st = statSync(path);
    const mode = st.mode & 0o777;
    if (st.isDirectory()) {
      if (mode !== 0o700) out.push(`${path} ${mode.toString(8)}`);
      for (const entry of readdirSync(path)) walk(join(path, entry));
    } else if (mode !== 0o600) out.push(`${path} ${mode.toString(8)}`);
  };
  walk(root);
  return out;
}

describe('the embedded data dir is private whatever the umask', () => {
  const umask = process.umask();
  const dirs: string[] = [];
  afterEach(() => {
    process.umask(umask);
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('a fresh data dir under umask 000 is 0700 with 0600 files, and a loosened one is fixed at start', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'arbiter-mode-'));
    dirs.push(parent);
    const dataDir = join(parent, 'data');
    process.umask(0);
    const first = await openDatabase({ kind: 'pglite', dataDir });
    await first.db.execute('select 1' as never).catch(() => undefined);
    await first.close();
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    expect(loose(join(dataDir, 'pgdata'))).toEqual([]);

    // What an older start left: world-writable files in a world-readable folder.
    process.umask(0);
    const pgdata = join(dataDir, 'pgdata');
    chmodSync(dataDir, 0o755);
    chmodSync(pgdata, 0o777);
    chmodSync(join(pgdata, 'PG_VERSION'), 0o666);
    mkdirSync(join(pgdata, 'leftover'), { mode: 0o777 });
    writeFileSync(join(pgdata, 'leftover', 'file'), 'x', { mode: 0o666 });
    expect(loose(pgdata).length).toBeGreaterThanOrEqual(3);
    const second = await openDatabase({ kind: 'pglite', dataDir });
    await second.close();
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    expect(loose(pgdata)).toEqual([]);
  });
});
