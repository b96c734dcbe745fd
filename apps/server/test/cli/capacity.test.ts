import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  MEASURED_CPU,
  MEASURED_IDLE_MS,
  MEASURED_MEMORY_MIB,
  PLANNING,
} from '../../src/cli/capacity-constants.ts';
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

  it('counts processes from CPU per event, at the planned utilisation', () => {
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
    const cpu = MEASURED_CPU.kafka[100];
    // Each single-core process is filled to the planned utilisation, less its own idle CPU.
    const count = (us: number | undefined, idleMs: number) =>
      Math.max(
        PLANNING.minProcesses,
        Math.ceil((50_000 * (us ?? 0)) / 1e6 / (PLANNING.utilisation - idleMs / 1000)),
      );
    const api = plan.parts.find((p) => p.part === 'API processes');
    const folds = plan.parts.find((p) => p.part === 'Fold workers');
    expect(api?.count).toBe(count(cpu.api, MEASURED_IDLE_MS.api));
    expect(folds?.count).toBe(count(cpu.fold, MEASURED_IDLE_MS.fold));
    expect(plan.partitions).toBe((folds?.count ?? 0) * PLANNING.partitionsPerFoldWorker);
    expect(api?.memoryMiB).toBeGreaterThanOrEqual(MEASURED_MEMORY_MIB.api);
    expect(totalOf(plan.cpu)).toBeCloseTo(totalOf(cpu), 9);
  });

  it('composes the Kafka path on the object store from the single node’s difference', () => {
    const composed = modelCpuPerEvent({ kafka: true, objectStore: true }, 100);
    const single = MEASURED_CPU.singleNode[100];
    const stored = MEASURED_CPU.singleNodeObjectStore[100];
    expect(composed.brokers).toBe(MEASURED_CPU.kafka[100].brokers);
    expect(composed.api).toBeCloseTo(
      (MEASURED_CPU.kafka[100].api ?? 0) + (stored.api ?? 0) - (single.api ?? 0),
      9,
    );
    expect(composed.objectStore).toBe(stored.objectStore);
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
