import { describe, expect, it } from 'vitest';
import { DiskGuard } from '../../src/db/disk-guard.ts';

/** A guard over a probe whose free space the test sets, counting the readings it takes. */
function guardOver(minFreeBytes: number) {
  const disk = { free: 0, readings: 0 };
  const probe = {
    freeBytes: async () => {
      disk.readings++;
      return disk.free;
    },
  };
  return { disk, guard: new DiskGuard('/data', probe, minFreeBytes) };
}

describe('the free-space guard near its threshold', () => {
  it('reads again for every write once free space is under twice the threshold', async () => {
    const { disk, guard } = guardOver(100);
    disk.free = 150;
    expect(await guard.writesAccepted()).toBe(true);
    // The disk fills right after a reading: the next write sees it, not the reading before.
    disk.free = 50;
    expect(await guard.writesAccepted()).toBe(false);
    expect(disk.readings).toBe(2);
  });

  it('accepts writes again at the first write after space is back', async () => {
    const { disk, guard } = guardOver(100);
    disk.free = 10;
    expect(await guard.writesAccepted()).toBe(false);
    disk.free = 10_000;
    expect(await guard.writesAccepted()).toBe(true);
    const status = await guard.status();
    expect(status).toMatchObject({ free_bytes: 10_000, writes_accepted: true });
  });
});
