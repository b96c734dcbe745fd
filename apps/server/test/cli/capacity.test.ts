import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { MEASURED, PLANNING } from '../../src/cli/capacity-constants.ts';
import { fitKafkaModel, KAFKA_COMPONENTS, kafkaCpuPerEvent } from '../../src/cli/capacity-fit.ts';
import { modelCpuPerEvent, planCapacity, totalOf } from '../../src/cli/capacity-plan.ts';
import { runCli } from '../support/process.ts';

const DOC = fileURLToPath(new URL('../../../../docs/capacity.md', import.meta.url));

/** docs/capacity.md's worked example: its command line and the lines of its tables. */
function workedExample() {
  const doc = readFileSync(DOC, 'utf8');
  const start = doc.indexOf('\n## Worked example');
  expect(start).toBeGreaterThan(-1);
  const end = doc.indexOf('\n## ', start + 1);
  const section = doc.slice(start, end === -1 ? undefined : end);
  const command = /^npx arbiter (capacity .*)$/m.exec(section)?.[1];
  expect(command).toBeDefined();
  const tables = section.split('\n').filter((line) => line.startsWith('|'));
  return { args: (command as string).trim().split(/\s+/), tables };
}

const tablesOf = (out: string) => out.split('\n').filter((line) => line.startsWith('|'));

describe('arbiter capacity', () => {
  it('prints the worked example of docs/capacity.md, table for table', () => {
    const { args, tables } = workedExample();
    expect(tables.length).toBeGreaterThan(8);
    const result = runCli(args, { ARBITER_PORT: 'eighty' });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    // A bad setting does not matter: the plan reads none.
    expect(tablesOf(result.stdout)).toEqual(tables);
  });

  it('counts processes from the model at the target rate, at the planned utilisation', () => {
    const target = {
      eventsPerSecond: 50_000,
      users: 1000,
      experiments: 1,
      metrics: 3,
      retentionDays: 1,
      kafka: true,
      objectStore: false,
    };
    const plan = planCapacity(target);
    const api = plan.parts.find((p) => p.part === 'API processes')?.count ?? 0;
    const folds = plan.parts.find((p) => p.part === 'Fold workers')?.count ?? 0;
    const cpuAt = (apis: number, foldWorkers: number) =>
      modelCpuPerEvent({ kafka: true, objectStore: false, apis, foldWorkers }, 50_000);
    // A component's cores: its µs per event at the rate, with every process's CPU a second.
    const cores = (us: number | undefined) => (50_000 * (us ?? 0)) / 1e6;
    const cpu = cpuAt(api, folds);
    expect(cores(cpu.api)).toBeLessThanOrEqual(api * PLANNING.utilisation);
    expect(cores(cpu.fold)).toBeLessThanOrEqual(folds * PLANNING.utilisation);
    // One process fewer would not do (or the count is the least allowed).
    if (api > PLANNING.minProcesses)
      expect(cores(cpuAt(api - 1, folds).api)).toBeGreaterThan((api - 1) * PLANNING.utilisation);
    if (folds > PLANNING.minProcesses)
      expect(cores(cpuAt(api, folds - 1).fold)).toBeGreaterThan((folds - 1) * PLANNING.utilisation);
    expect(plan.partitions).toBe(folds * PLANNING.partitionsPerFoldWorker);
    expect(plan.parts.find((p) => p.part === 'API processes')?.memoryMiB).toBeGreaterThanOrEqual(
      MEASURED.memoryMiB.api,
    );
    expect(totalOf(plan.cpu)).toBeCloseTo(totalOf(cpu), 9);
  });

  it('spreads each process’s CPU a second over the rate', () => {
    const k = MEASURED.kafka;
    const at = (eventsPerSecond: number) =>
      modelCpuPerEvent(
        { kafka: true, objectStore: false, apis: 2, foldWorkers: 3 },
        eventsPerSecond,
      );
    for (const c of KAFKA_COMPONENTS) {
      const perSecond = 2 * k.perApiProcessMs[c] + 3 * k.perFoldWorkerMs[c] + k.sharedMs[c];
      expect(at(400)[c]).toBeCloseTo(k.perEventUs[c] + (perSecond * 1000) / 400, 9);
      expect(at(4000)[c]).toBeCloseTo(k.perEventUs[c] + (perSecond * 1000) / 4000, 9);
    }
  });

  it('fits the per-event and per-process terms back from the shapes they made', () => {
    const truth = {
      perEventUs: { api: 150, brokers: 10, fold: 30, postgres: 90 },
      perApiProcessMs: { api: 20, brokers: 5, fold: 0, postgres: 2 },
      perFoldWorkerMs: { api: 0, brokers: 12, fold: 25, postgres: 15 },
      sharedMs: { api: 0, brokers: 20, fold: 0, postgres: 8 },
    };
    const shapes = [
      { apis: 1, foldWorkers: 1, eventsPerSecond: 1000 },
      { apis: 2, foldWorkers: 1, eventsPerSecond: 700 },
      { apis: 1, foldWorkers: 3, eventsPerSecond: 500 },
    ];
    const observations = shapes.map((s) => ({
      ...s,
      cpuPerEventUs: kafkaCpuPerEvent(truth, s, s.eventsPerSecond),
    }));
    const fitted = fitKafkaModel(observations, truth.sharedMs);
    for (const c of KAFKA_COMPONENTS) {
      expect(fitted.perEventUs[c]).toBeCloseTo(truth.perEventUs[c], 6);
      expect(fitted.perApiProcessMs[c]).toBeCloseTo(truth.perApiProcessMs[c], 6);
      expect(fitted.perFoldWorkerMs[c]).toBeCloseTo(truth.perFoldWorkerMs[c], 6);
    }
  });

  it('composes the Kafka path on the object store from the single node’s difference', () => {
    const shape = { kafka: true, apis: 1, foldWorkers: 1 };
    const plain = modelCpuPerEvent({ ...shape, objectStore: false }, 500);
    const composed = modelCpuPerEvent({ ...shape, objectStore: true }, 500);
    const added = MEASURED.objectStore.perEventUs;
    expect(composed.brokers).toBe(plain.brokers);
    expect(composed.api).toBeCloseTo((plain.api ?? 0) + (added.api ?? 0), 9);
    expect(composed.objectStore).toBeCloseTo(
      (added.objectStore ?? 0) + (MEASURED.objectStore.idleMs * 1000) / 500,
      9,
    );
  });

  it('grows shards with users: the nightly analysis must fit its window', () => {
    const base = {
      eventsPerSecond: 100,
      users: 1_000_000,
      experiments: 10,
      metrics: 3,
      retentionDays: 1,
      kafka: false,
      objectStore: false,
    };
    const shardsOf = (users: number) =>
      planCapacity({ ...base, users }).parts.find((p) => p.part === 'PostgreSQL shards')?.count;
    expect(shardsOf(1_000_000)).toBe(1);
    expect(shardsOf(1_000_000_000)).toBeGreaterThan(1);
  });

  it('refuses a missing or invalid number in one line, exit 2', () => {
    const missing = runCli(['capacity', '--events-per-second', '100'], {});
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe('arbiter: capacity: needs --users N\n');
    const bad = runCli(
      [
        'capacity',
        '--events-per-second=1.5',
        '--users=1',
        '--experiments=1',
        '--metrics=1',
        '--retention-days=1',
      ],
      {},
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe(
      'arbiter: capacity: --events-per-second "1.5" is not a whole number from 1 to 999,999,999,999\n',
    );
    expect(bad.stdout).toBe('');
  });
});
