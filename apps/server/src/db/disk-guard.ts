import { statfs } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import type { FreeSpaceProbe } from '../kernel/ports.ts';

/** The space an unprivileged process may still write on the file system holding `dir`. */
export function statfsProbe(dir: string): FreeSpaceProbe {
  return {
    async freeBytes() {
      const stats = await statfs(dir);
      return stats.bavail * stats.bsize;
    },
  };
}

export interface DiskStatus {
  /** The directory the embedded database writes to. */
  path: string;
  free_bytes: number | null;
  min_free_bytes: number;
  writes_accepted: boolean;
  /** Why the free space could not be read; writes are refused meanwhile. */
  error?: string;
}

/**
 * A reading is reused this long: a write costs no file-system call, and what a second of
 * writes can add is far below any sensible threshold.
 */
const READING_REUSED_MS = 1000;

/**
 * Below this many times the threshold (or with writes refused) no reading is reused: near the
 * threshold a second of writes, or another process, can take the rest, and once space is back
 * the next write should see it. `statfs` costs microseconds.
 */
const REUSED_ABOVE_THRESHOLD_TIMES = 2;

/**
 * Keeps the embedded database off a full disk. PGlite runs PostgreSQL on the process's own
 * thread: once a WAL segment cannot be created it spins there, answering nothing, so the only
 * defence is never to get there. Writes are refused below `minFreeBytes` and accepted again as
 * soon as a reading finds the space back; nothing is stopped or restarted in between.
 */
export class DiskGuard {
  private reading: { at: number; status: DiskStatus } | null = null;
  private pending: Promise<DiskStatus> | null = null;

  constructor(
    readonly path: string,
    private readonly probe: FreeSpaceProbe,
    private readonly minFreeBytes: number,
  ) {}

  /** Whether a write may start now. */
  async writesAccepted(): Promise<boolean> {
    return (await this.status()).writes_accepted;
  }

  /** The latest reading; `fresh` reads the file system again (the health view does). */
  async status(fresh = false): Promise<DiskStatus> {
    const last = this.reading;
    if (!fresh && last !== null && this.reusable(last)) return last.status;
    // Callers arriving while a reading is under way share it.
    this.pending ??= this.read().finally(() => {
      this.pending = null;
    });
    return this.pending;
  }

  private reusable(last: { at: number; status: DiskStatus }): boolean {
    const free = last.status.free_bytes;
    return (
      last.status.writes_accepted &&
      free !== null &&
      free >= this.minFreeBytes * REUSED_ABOVE_THRESHOLD_TIMES &&
      performance.now() - last.at < READING_REUSED_MS
    );
  }

  private async read(): Promise<DiskStatus> {
    const base = { path: this.path, min_free_bytes: this.minFreeBytes };
    let status: DiskStatus;
    try {
      const free = await this.probe.freeBytes();
      status = { ...base, free_bytes: free, writes_accepted: free >= this.minFreeBytes };
    } catch (error) {
      // Space that cannot be measured cannot be promised: refuse until a reading succeeds.
      const reason = error instanceof Error ? error.message : String(error);
      status = { ...base, free_bytes: null, writes_accepted: false, error: reason };
    }
    this.reading = { at: performance.now(), status };
    return status;
  }
}
