import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FreeSpaceProbe } from '../../src/kernel/ports.ts';

/**
 * A file system a test can fill: a tmpfs of `sizeBytes` mounted for the test (as root), or,
 * where mounting is not allowed, a plain temporary directory whose free space the server reads
 * through `probe`, lowered by what the test "fills". Either way the server sees the space go.
 */
export interface SmallFileSystem {
  dir: string;
  /** True when a real size-limited file system was mounted. */
  mounted: boolean;
  /** What the server should read its free space through: undefined means statfs, as in production. */
  probe: FreeSpaceProbe | undefined;
  free(): number;
  /** Takes space until `leaveBytes` remain free. */
  fillLeaving(leaveBytes: number): void;
  /** Takes every byte left, down to the file system's refusal (ENOSPC); mounted only. */
  fillUp(): void;
  /** Gives the space taken by `fillLeaving` and `fillUp` back. */
  release(): void;
  unmount(): void;
}

function freeOf(dir: string): number {
  const s = statfsSync(dir);
  return s.bavail * s.bsize;
}

function tryMount(dir: string, sizeBytes: number): boolean {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeBytes}`, 'tmpfs', dir], {
      stdio: 'ignore',
    });
    return true;
  } catch {
    return false;
  }
}

export function smallFileSystem(sizeBytes: number): SmallFileSystem {
  const dir = mkdtempSync(join(tmpdir(), 'arbiter-small-fs-'));
  const mounted = tryMount(dir, sizeBytes);
  const filler = join(dir, 'filler');
  const base = freeOf(dir);
  // Unmounted, the directory's free space is the host's; the probe reports it as if the
  // directory sat on a file system of `sizeBytes`.
  let taken = 0;
  const simulatedFree = () => Math.max(0, sizeBytes - (base - freeOf(dir)) - taken);
  return {
    dir,
    mounted,
    probe: mounted ? undefined : { freeBytes: async () => simulatedFree() },
    free: () => (mounted ? freeOf(dir) : simulatedFree()),
    fillLeaving(leaveBytes) {
      if (!mounted) {
        taken += Math.max(0, simulatedFree() - leaveBytes);
        return;
      }
      const chunk = Buffer.alloc(1024 * 1024);
      const chunks = Math.max(0, Math.floor((freeOf(dir) - leaveBytes) / chunk.length));
      writeFileSync(filler, Buffer.alloc(0));
      for (let i = 0; i < chunks; i++) writeFileSync(filler, chunk, { flag: 'a' });
    },
    fillUp() {
      if (!mounted) throw new Error('only a mounted file system can be filled up');
      this.fillLeaving(0);
      for (const size of [64 * 1024, 4096, 512, 1]) {
        const chunk = Buffer.alloc(size);
        try {
          for (;;) writeFileSync(filler, chunk, { flag: 'a' });
        } catch (error) {
          if ((error as { code?: string }).code !== 'ENOSPC') throw error;
        }
      }
    },
    release() {
      taken = 0;
      rmSync(filler, { force: true });
    },
    unmount() {
      if (mounted) execFileSync('umount', ['-l', dir], { stdio: 'ignore' });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
