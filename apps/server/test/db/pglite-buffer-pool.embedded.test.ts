import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { openDatabase, rows } from '../../src/db/connect.ts';

/** PGlite's buffer pool: 32 MB on a data dir, 16 MB in memory (docs/decisions/operations.md#build-start-and-the-demo). */
const poolOf = async (dataDir: string | null) => {
  const handle = await openDatabase({ kind: 'pglite', dataDir });
  try {
    const [row] = await rows<{ pool: string }>(
      handle.db,
      sql`select current_setting('shared_buffers') as pool`,
    );
    return row?.pool;
  } finally {
    await handle.close();
  }
};

describe('the embedded database', () => {
  it('runs a 32 MB buffer pool on a data dir, at its first start and after', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'arbiter-buffer-pool-'));
    try {
      expect(await poolOf(dir)).toBe('32MB');
      expect(await poolOf(dir)).toBe('32MB');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('runs a 16 MB buffer pool in memory', async () => {
    expect(await poolOf(null)).toBe('16MB');
  });
});
