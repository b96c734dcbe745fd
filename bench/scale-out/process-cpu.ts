import { readdirSync, readFileSync } from 'node:fs';

/** USER_HZ: the unit of /proc/<pid>/stat's CPU times, 100 on Linux. */
const TICKS_PER_SECOND = 100;

interface Stat {
  ppid: number;
  /** utime + stime + cutime + cstime, in ticks: the process and the children it has reaped. */
  ticks: number;
}

/** Every live process's parent and CPU, from one pass over /proc. */
function readAll(): Map<number, Stat> {
  const stats = new Map<number, Stat>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // The fields after the ")" that closes the command name: ppid is the 2nd, utime, stime,
      // cutime and cstime the 12th to 15th.
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ticks = Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
      stats.set(Number(name), { ppid: Number(f[1]), ticks });
    } catch {
      // gone between the listing and the read
    }
  }
  return stats;
}

/**
 * CPU seconds so far of each component: the whole process tree under each of its root pids
 * (PostgreSQL's backends are the postmaster's children, a JVM's threads are its own). A live
 * process counts its own time and that of the children it has reaped (cutime, cstime), so a
 * backend that came and went between two readings is counted by the postmaster.
 */
export function componentCpuSeconds(
  roots: Readonly<Record<string, readonly number[]>>,
): Record<string, number> {
  const stats = readAll();
  const children = new Map<number, number[]>();
  for (const [pid, s] of stats) {
    const list = children.get(s.ppid) ?? [];
    list.push(pid);
    children.set(s.ppid, list);
  }
  const out: Record<string, number> = {};
  for (const [component, pids] of Object.entries(roots)) {
    let ticks = 0;
    const stack = [...pids];
    const seen = new Set<number>();
    while (stack.length > 0) {
      const pid = stack.pop() as number;
      if (seen.has(pid)) continue;
      seen.add(pid);
      ticks += stats.get(pid)?.ticks ?? 0;
      stack.push(...(children.get(pid) ?? []));
    }
    out[component] = ticks / TICKS_PER_SECOND;
  }
  return out;
}

/** CPU seconds of one process alone (utime + stime), e.g. a backend to leave out. */
export function ownCpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / TICKS_PER_SECOND;
  } catch {
    return Number.NaN;
  }
}

/** Peak resident memory of a process (VmHWM), in MiB; NaN when it is gone. */
export function peakRssMiB(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = /VmHWM:\s+(\d+) kB/.exec(status)?.[1];
    return kib === undefined ? Number.NaN : Number(kib) / 1024;
  } catch {
    return Number.NaN;
  }
}
