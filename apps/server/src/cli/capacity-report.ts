import { MEASURED_RUN } from './capacity-constants.ts';
import { type CapacityPlan, type CapacityTarget, totalOf } from './capacity-plan.ts';
import type { Values } from './parse-command-line.ts';
import { UsageError } from './usage-error.ts';

const GIB = 1024 ** 3;
const count = (n: number) => Math.round(n).toLocaleString('en-US');

/** Bytes as GiB below a TiB, else TiB, one decimal. */
export function bytesText(bytes: number): string {
  if (bytes >= 1024 * GIB) return `${(bytes / (1024 * GIB)).toFixed(1)} TiB`;
  return `${(bytes / GIB).toFixed(1)} GiB`;
}

const memoryText = (mib: number) =>
  mib >= 1024 && mib % 1024 === 0 ? `${mib / 1024} GiB` : `${mib} MiB`;
const dash = (value: string | null) => value ?? '—';

/** The plan as the two tables docs/capacity.md's worked example shows. */
export function formatPlan(plan: CapacityPlan): string {
  const t = plan.target;
  const lines = [
    `Capacity plan for ${count(t.eventsPerSecond)} events/s, ${count(t.users)} users, ${count(t.experiments)} experiments, ${count(t.metrics)} metrics, ${count(t.retentionDays)} days of retention; ${t.kafka ? 'the Kafka log' : 'the database as the log'}, model text ${t.objectStore ? 'in the object store' : 'in the rows'}.`,
    '',
    '| Part | Count | Cores each | Memory each | Disk each |',
    '| --- | ---: | ---: | ---: | ---: |',
  ];
  for (const p of plan.parts) {
    lines.push(
      `| ${p.part} | ${p.count} | ${dash(p.cores === null ? null : String(p.cores))} | ${dash(p.memoryMiB === null ? null : memoryText(p.memoryMiB))} | ${dash(p.diskBytes === null ? null : bytesText(p.diskBytes))} |`,
    );
  }
  const cpu = Object.entries(plan.cpu)
    .map(([c, v]) => `${c} ${(v ?? 0).toFixed(1)}`)
    .join(', ');
  lines.push('', '| Figure | Value |', '| --- | ---: |');
  if (plan.partitions !== null) lines.push(`| Topic partitions | ${plan.partitions} |`);
  lines.push(
    `| CPU µs per event (batches of 100, at the target rate) | ${totalOf(plan.cpu).toFixed(1)} (${cpu}) |`,
    `| Events a day | ${count(plan.eventsPerDay)} |`,
    `| Disk, all parts | ${bytesText(plan.diskBytes)} |`,
    `| Nightly analysis, CPU per shard | ${Math.ceil(plan.nightlyCpuSecondsPerShard / 60)} min |`,
  );
  if (t.kafka) lines.push(`| event_claims growth a day | ${bytesText(plan.claimBytesPerDay)} |`);
  lines.push(
    '',
    `Constants from \`${MEASURED_RUN.command}\` at ${MEASURED_RUN.commit} (docs/capacity.md).`,
  );
  return `${lines.join('\n')}\n`;
}

const OPTIONS = {
  'events-per-second': 'eventsPerSecond',
  users: 'users',
  experiments: 'experiments',
  metrics: 'metrics',
  'retention-days': 'retentionDays',
} as const;

/** The command line's target: every number required, a whole number from 1 on. */
export function targetOf(values: Values): CapacityTarget {
  const numbers: Record<string, number> = {};
  for (const [option, field] of Object.entries(OPTIONS)) {
    const given = values[option];
    if (typeof given !== 'string') throw new UsageError('capacity', `needs --${option} N`);
    if (!/^[1-9]\d{0,11}$/.test(given))
      throw new UsageError(
        'capacity',
        `--${option} ${JSON.stringify(given)} is not a whole number from 1 to 999,999,999,999`,
      );
    numbers[field] = Number(given);
  }
  return {
    ...(numbers as Omit<CapacityTarget, 'kafka' | 'objectStore'>),
    kafka: values.kafka === true,
    objectStore: values['object-store'] === true,
  };
}
