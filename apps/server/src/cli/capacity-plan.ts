import {
  type Component,
  type CpuPerEvent,
  MEASURED,
  MEASURED_BYTES,
  MEASURED_MEMORY_MIB,
  type MeasuredRun,
  PIPELINE_CPU,
  PLANNING,
} from './capacity-constants.ts';
import { kafkaCpuPerEvent } from './capacity-fit.ts';

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
 * The model's CPU µs per event by component at a rate, batch 100. The single node: its net
 * constants plus its process's and PostgreSQL's idle CPU over the events of a second. The Kafka
 * path: the fitted model (capacity-fit.ts), where each API process and each fold worker adds its
 * CPU a second spread over the rate. On the object store: plus what the store added to the
 * single node, and the store's idle CPU.
 */
export function modelCpuPerEvent(
  shape: { kafka: boolean; objectStore: boolean; apis: number; foldWorkers: number },
  eventsPerSecond: number,
  measured: MeasuredRun = MEASURED,
): CpuPerEvent {
  const spread = (ms: number) => (ms * 1000) / eventsPerSecond;
  const store = shape.objectStore ? measured.objectStore : null;
  if (!shape.kafka) {
    const net = measured.cpu[store ? 'singleNodeObjectStore' : 'singleNode'][100] ?? {};
    const out: CpuPerEvent = {
      ...net,
      api: (net.api ?? 0) + spread(measured.idleMs.singleNode * shape.apis),
      postgres: (net.postgres ?? 0) + spread(measured.idleMs.postgres),
    };
    if (store) out.objectStore = (net.objectStore ?? 0) + spread(store.idleMs);
    return out;
  }
  const out: CpuPerEvent = kafkaCpuPerEvent(measured.kafka, shape, eventsPerSecond);
  if (!store) return out;
  for (const c of ['api', 'postgres', 'objectStore'] as const)
    out[c] = (out[c] ?? 0) + (store.perEventUs[c] ?? 0);
  out.objectStore = (out.objectStore ?? 0) + spread(store.idleMs);
  return out;
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

/** Single-core processes filled to the utilisation, at least `minProcesses`. */
const filled = (cores: number) =>
  Math.max(PLANNING.minProcesses, Math.ceil(cores / PLANNING.utilisation - 1e-9));

/**
 * The single-core processes the target needs: API processes and, on the Kafka path, fold
 * workers. Each process's CPU a second counts with the rate's work, so more processes need
 * more cores: counted again until the counts stand (they only grow).
 */
export function processesFor(t: CapacityTarget): { apis: number; foldWorkers: number } {
  let shape = { kafka: t.kafka, objectStore: t.objectStore, apis: 1, foldWorkers: t.kafka ? 1 : 0 };
  for (let round = 0; round < 100; round++) {
    const cpu = modelCpuPerEvent(shape, t.eventsPerSecond);
    const cores = (c: Component) => (t.eventsPerSecond * (cpu[c] ?? 0)) / 1e6;
    const next = {
      ...shape,
      apis: Math.max(shape.apis, filled(cores('api'))),
      foldWorkers: t.kafka ? Math.max(shape.foldWorkers, filled(cores('fold'))) : 0,
    };
    if (next.apis === shape.apis && next.foldWorkers === shape.foldWorkers) return shape;
    shape = next;
  }
  throw new Error('a process spends more than the utilisation on its own: no count will do');
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

function kafkaParts(t: CapacityTarget, cpu: CpuPerEvent, eventsPerDay: number, folds: number) {
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
  const processes = processesFor(t);
  const cpu = modelCpuPerEvent({ ...t, ...processes }, t.eventsPerSecond);
  const eventsPerDay = t.eventsPerSecond * SECONDS_A_DAY;
  const parts: PlanPart[] = [
    {
      part: t.kafka ? 'API processes' : 'API processes (each also folds)',
      count: processes.apis,
      cores: 1,
      memoryMiB: memoryOf(MEASURED_MEMORY_MIB.api),
      diskBytes: null,
    },
  ];
  let partitions: number | null = null;
  let disk = 0;
  if (t.kafka) {
    const k = kafkaParts(t, cpu, eventsPerDay, processes.foldWorkers);
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
