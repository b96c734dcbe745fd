import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileOfflineStore } from '../src/internal/offline-store-file.ts';
import type { ArbiterEvent } from '../src/internal/wire.ts';

const event = (n: number): ArbiterEvent => ({
  event_id: `e${n}`,
  type: 'business_event',
  experiment_id: 'x',
  user_id: 'u',
  timestamp: new Date(n * 1_000).toISOString(),
  business_metric: 'm',
  value: n,
});

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'arbiter-store-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('FileOfflineStore', () => {
  it('appends, peeks oldest first, removes by id, and persists across instances', async () => {
    const path = join(dir, 'nested', 'spill.ndjson');
    const store = new FileOfflineStore(path, 100);
    expect(await store.append([event(1), event(2)])).toBe(0);
    expect(await store.append([event(3)])).toBe(0);
    expect((await store.peek(2)).map((e) => e.event_id)).toEqual(['e1', 'e2']);
    await store.remove(['e2', 'nope']);
    const reopened = new FileOfflineStore(path, 100);
    expect(await reopened.peek(10)).toEqual([event(1), event(3)]);
    expect(readFileSync(path, 'utf8').trim().split('\n')).toHaveLength(2);
  });

  it('drops the oldest past its capacity and says how many', async () => {
    const store = new FileOfflineStore(join(dir, 's.ndjson'), 3);
    await store.append([event(1), event(2)]);
    expect(await store.append([event(3), event(4), event(5)])).toBe(2);
    expect((await store.peek(10)).map((e) => e.event_id)).toEqual(['e3', 'e4', 'e5']);
  });

  it('runs concurrent operations in call order', async () => {
    const store = new FileOfflineStore(join(dir, 's.ndjson'), 100);
    await Promise.all([
      store.append([event(1)]),
      store.remove(['e1']),
      store.append([event(2)]),
      store.append([event(3)]),
    ]);
    expect((await store.peek(10)).map((e) => e.event_id)).toEqual(['e2', 'e3']);
  });

  it('starts the first append after a torn last line on a line of its own', async () => {
    const path = join(dir, 's.ndjson');
    // A crash mid-append left half a line, without its newline, after a whole one.
    const whole = `${JSON.stringify(event(1))}\n`;
    writeFileSync(path, whole + JSON.stringify(event(9)).slice(0, 20));
    const store = new FileOfflineStore(path, 100);
    expect((await store.peek(10)).map((e) => e.event_id)).toEqual(['e1']);
    await store.append([event(2)]);
    await store.append([event(3)]);
    const reopened = new FileOfflineStore(path, 100);
    expect(await reopened.peek(10)).toEqual([event(1), event(2), event(3)]);
  });

  it('rejects when the path cannot be written', async () => {
    const blocker = join(dir, 'file');
    writeFileSync(blocker, 'x');
    const store = new FileOfflineStore(join(blocker, 'spill.ndjson'), 10);
    await expect(store.append([event(1)])).rejects.toThrow();
  });
});
