import { describe, expect, it } from 'vitest';
import { BulkLane } from '../../src/kernel/bulk-lane.ts';

/** Lets every settled promise's continuation run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('BulkLane', () => {
  it('runs one at a time and lets waiting orgs in by turns, each org in its own order', async () => {
    const lane = new BulkLane(1);
    const order: string[] = [];
    const releases = new Map<string, () => void>();
    const start = (org: string, name: string) =>
      lane.enter(org).then((release) => {
        order.push(name);
        releases.set(name, release);
      });
    const all = [
      start('a', 'a1'),
      start('a', 'a2'),
      start('a', 'a3'),
      start('b', 'b1'),
      start('c', 'c1'),
      start('b', 'b2'),
    ];
    await settle();
    expect(order).toEqual(['a1']);
    expect(lane.waiting).toBe(5);
    for (const expected of ['a2', 'b1', 'c1', 'a3', 'b2']) {
      const running = order.at(-1) as string;
      releases.get(running)?.();
      // A second call of a release changes nothing.
      releases.get(running)?.();
      await settle();
      expect(order.at(-1)).toBe(expected);
    }
    releases.get('b2')?.();
    await Promise.all(all);
    expect(order).toEqual(['a1', 'a2', 'b1', 'c1', 'a3', 'b2']);
    expect(lane.waiting).toBe(0);
    // Free again: the next one enters at once.
    const next = await lane.enter('d');
    next();
  });

  it('admits up to its width at once', async () => {
    const lane = new BulkLane(2);
    const entered: string[] = [];
    const first = await lane.enter('a');
    await lane.enter('b');
    void lane.enter('c').then(() => entered.push('c'));
    await settle();
    expect(entered).toEqual([]);
    first();
    await settle();
    expect(entered).toEqual(['c']);
  });
});
