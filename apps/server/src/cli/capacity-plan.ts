import {
  type BatchSize,
  type Component,
  type CpuPerEvent,
  MEASURED_BYTES,
  MEASURED_CPU,
  MEASURED_IDLE_MS,
  MEASURED_MEMORY_MIB,
  PIPELINE_CPU,
  PLANNING,
} from './capacity-constants.ts';

/** What a deployment must take: the operator's target. */
export interface CapacityTarget {
  eventsPerSecond: number;
  users: number;
  experiments: number;
  metrics: number;
  retentionDays: number;
  kafka: boolean;
  objectStore: boolean;
}

const GIB = 1024 ** 3;
const SECONDS_A_DAY = 86_400;

/**
 * The model: CPU µs per event by component at a batch size. It holds that CPU per event does not
 * depend on how many processes share the work, so the constants of one configuration stand for
 * any. The Kafka path on the object store is composed: the Kafka path's figures plus what the
 * object store added to the single node's API, PostgreSQL and the store itself.
 */
export function modelCpuPerEvent(
  shape: { kafka: boolean; objectStore: boolean },
  batch: BatchSize,
): CpuPerEvent {
  if (!shape.kafka)
    return { ...MEASURED_CPU[shape.objectStore ? 'singleNodeObjectStore' : 'singleNode'][batch] };
  const out = { ...MEASURED_CPU.kafka[batch] };
  if (!shape.objectStore) return out;
  const plain = MEASURED_CPU.singleNode[batch];
  const stored = MEASURED_CPU.singleNodeObjectStore[batch];
  for (const c of ['api', 'postgres', 'objectStore'] as const) {
    out[c] = (out[c] ?? 0) + (stored[c] ?? 0) - (plain[c] ?? 0);
  }
  return out;
}

/** Idle CPU ms a second of a shape's processes: each process's idle CPU, times their number. */
export function modelIdleMsPerSecond(shape: {
  kafka: boolean;
  objectStore: boolean;
  apis: number;
  foldWorkers: number;
}): number {
  const brokers = shape.kafka ? MEASURED_IDLE_MS.brokers : 0;
  const folds = shape.kafka ? MEASURED_IDLE_MS.fold * shape.foldWorkers : 0;
  const store = shape.objectStore ? MEASURED_IDLE_MS.objectStore : 0;
  return MEASURED_IDLE_MS.api * shape.apis + brokers + folds + store + MEASURED_IDLE_MS.postgres;
}

export const totalOf = (cpu: CpuPerEvent) =>
  Object.values(cpu).reduce((sum, v) => sum + (v ?? 0), 0);

export interface PlanPart {
  part: string;
  count: number;
  cores: number | null;
  memoryMiB: number | null;
  diskBytes: number | null;
}

export interface CapacityPlan {
  target: CapacityTarget;
  cpu: CpuPerEvent;
  parts: PlanPart[];
  partitions: number | null;
  eventsPerDay: number;
  diskBytes: number;
  claimBytesPerDay: number;
  nightlyCpuSecondsPerShard: number;
}

/** Cores the component's work needs at the target rate, filled to PLANNING.utilisation. */
function coresFor(t: CapacityTarget, cpu: CpuPerEvent, c: Component): number {
  return (t.eventsPerSecond * (cpu[c] ?? 0)) / 1e6 / PLANNING.utilisation;
}

/** Single-core processes of a component: its work, and each one's idle CPU besides. */
function processesFor(t: CapacityTarget, cpu: CpuPerEvent, c: Component): number {
  const work = (t.eventsPerSecond * (cpu[c] ?? 0)) / 1e6;
  const room = PLANNING.utilisation - MEASURED_IDLE_MS[c] / 1000;
  return Math.max(PLANNING.minProcesses, Math.ceil(work / room));
}
const memoryOf = (mib: number) => Math.ceil((mib * PLANNING.memoryHeadroom) / 128) * 128;

/** The event store: PostgreSQL's cores, its disk and the nightly analysis decide the shards. */
function shards(t: CapacityTarget, cpu: CpuPerEvent, eventsPerDay: number) {
  const cores = coresFor(t, cpu, 'postgres');
  const eventRow = t.objectStore ? MEASURED_BYTES.eventRowObjectStore : MEASURED_BYTES.eventRow;
  const aggregateRowsPerDay = t.users * t.experiments;
  const rows =
    eventsPerDay * t.retentionDays * eventRow +
    aggregateRowsPerDay * t.retentionDays * MEASURED_BYTES.userDayStatsRow;
  const disk = rows * PLANNING.diskHeadroom;
  const nightly =
    (t.users * t.experiments * PIPELINE_CPU.microsPerUserExperiment * t.metrics) /
    PIPELINE_CPU.metrics /
    1e6;
  const count = Math.max(
    1,
    Math.ceil(cores / PLANNING.coresPerShard),
    Math.ceil(disk / (PLANNING.diskPerShardGiB * GIB)),
    Math.ceil(nightly / PLANNING.nightlySecondsPerShard),
  );
  const dayOfAggregates = (aggregateRowsPerDay * MEASURED_BYTES.userDayStatsRow) / count;
  const memoryGiB = Math.max(PLANNING.minShardMemoryGiB, Math.ceil((4 * dayOfAggregates) / GIB));
  const part: PlanPart = {
    part: 'PostgreSQL shards',
    count,
    cores: Math.max(2, Math.ceil(cores / count)),
    memoryMiB: memoryGiB * 1024,
    diskBytes: disk / count,
  };
  return { part, disk, nightlyPerShard: nightly / count };
}

function kafkaParts(t: CapacityTarget, cpu: CpuPerEvent, eventsPerDay: number) {
  const folds = processesFor(t, cpu, 'fold');
  const brokerCores = coresFor(t, cpu, 'brokers') * PLANNING.replication;
  const brokerDisk =
    eventsPerDay *
    PLANNING.topicRetentionDays *
    MEASURED_BYTES.brokerPerEvent *
    PLANNING.replication *
    PLANNING.diskHeadroom;
  const parts: PlanPart[] = [
    {
      part: 'Kafka brokers',
      count: PLANNING.brokers,
      cores: Math.max(1, Math.ceil(brokerCores / PLANNING.brokers)),
      memoryMiB: memoryOf(MEASURED_MEMORY_MIB.broker),
      diskBytes: brokerDisk / PLANNING.brokers,
    },
    {
      part: 'Fold workers',
      count: folds,
      cores: 1,
      memoryMiB: memoryOf(MEASURED_MEMORY_MIB.fold),
      diskBytes: null,
    },
  ];
  return { parts, partitions: folds * PLANNING.partitionsPerFoldWorker, disk: brokerDisk };
}

/** The plan for a target: processes, partitions, shards, and each one's cores, memory and disk. */
export function planCapacity(t: CapacityTarget): CapacityPlan {
  const cpu = modelCpuPerEvent(t, 100);
  const eventsPerDay = t.eventsPerSecond * SECONDS_A_DAY;
  const parts: PlanPart[] = [
    {
      part: t.kafka ? 'API processes' : 'API processes (each also folds)',
      count: processesFor(t, cpu, 'api'),
      cores: 1,
      memoryMiB: memoryOf(MEASURED_MEMORY_MIB.api),
      diskBytes: null,
    },
  ];
  let partitions: number | null = null;
  let disk = 0;
  if (t.kafka) {
    const k = kafkaParts(t, cpu, eventsPerDay);
    parts.push(...k.parts);
    partitions = k.partitions;
    disk += k.disk;
  }
  const store = shards(t, cpu, eventsPerDay);
  parts.push(store.part);
  disk += store.disk;
  if (t.objectStore) {
    const bytes = eventsPerDay * t.retentionDays * MEASURED_BYTES.objectStorePerEvent;
    const cores = coresFor(t, cpu, 'objectStore');
    parts.push({
      part: 'Object store (S3-compatible)',
      count: 1,
      cores: Math.max(1, Math.ceil(cores)),
      memoryMiB: null,
      diskBytes: bytes,
    });
    disk += bytes;
  }
  return {
    target: t,
    cpu,
    parts,
    partitions,
    eventsPerDay,
    diskBytes: disk,
    claimBytesPerDay: t.kafka ? eventsPerDay * MEASURED_BYTES.claimRow : 0,
    nightlyCpuSecondsPerShard: store.nightlyPerShard,
  };
}
