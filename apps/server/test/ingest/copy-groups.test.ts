import { describe, expect, it } from 'vitest';
import { CopyGroups } from '../../src/ingest/copy-groups.ts';
import type { CopyStore } from '../../src/ingest/copy-store.ts';
import type { AcceptedEvent } from '../../src/ingest/event-schema.ts';

/** A COPY store whose writes the test ends one by one, recording what each wrote. */
class HeldWrites implements CopyStore {
  readonly writes: Array<{
    orgId: string;
    month: string;
    ids: string[];
    end: (stored: boolean | Error) => void;
  }> = [];

  store(orgId: string, month: string, _shard: number | null, events: readonly AcceptedEvent[]) {
    return new Promise<boolean>((resolve, reject) => {
      this.writes.push({
        orgId,
        month,
        ids: events.map((e) => e.event_id),
        end: (stored) => (stored instanceof Error ? reject(stored) : resolve(stored)),
      });
    });
  }

  /** Ends the first `count` writes one after another, each as stored. */
  async endInTurn(count: number): Promise<void> {
    for (let i = 0; i < count; i++) {
      this.writes[i]?.end(true);
      await settled();
    }
  }
}

const events = (prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) => ({ event_id: `${prefix}-${i}` }) as AcceptedEvent);

/** Lets the promise callbacks queued so far run. */
const settled = () => new Promise((resolve) => setImmediate(resolve));

describe('CopyGroups', () => {
  it('writes a request at once while fewer than two writes of its org are under way', async () => {
    const held = new HeldWrites();
    const groups = new CopyGroups(held);
    const a = groups.store('org-a', '2026-11', 1, events('a', 2));
    const b = groups.store('org-a', '2026-11', 1, events('b', 2));
    expect(held.writes.map((w) => w.ids)).toEqual([
      ['a-0', 'a-1'],
      ['b-0', 'b-1'],
    ]);
    held.writes[0]?.end(true);
    held.writes[1]?.end(true);
    await expect(a).resolves.toBe(true);
    await expect(b).resolves.toBe(true);
  });

  it("writes an org's waiting requests together, and never with another org's", async () => {
    const held = new HeldWrites();
    const groups = new CopyGroups(held);
    const first = [
      groups.store('org-a', 'm', 1, events('a1', 1)),
      groups.store('org-a', 'm', 1, events('a2', 1)),
    ];
    const waiting = [
      groups.store('org-a', 'm', 1, events('a3', 2)),
      groups.store('org-a', 'm', 1, events('a4', 1)),
    ];
    const other = groups.store('org-b', 'm', 1, events('b1', 1));
    expect(held.writes.map((w) => [w.orgId, w.ids.length])).toEqual([
      ['org-a', 1],
      ['org-a', 1],
      ['org-b', 1],
    ]);
    held.writes[0]?.end(true);
    await settled();
    expect(held.writes[3]).toMatchObject({ orgId: 'org-a', ids: ['a3-0', 'a3-1', 'a4-0'] });
    for (const w of held.writes.slice(1)) w.end(true);
    for (const stored of [...first, ...waiting, other]) await expect(stored).resolves.toBe(true);
    expect(held.writes).toHaveLength(4);
  });

  it("answers a group's false (an event stored before) to every request in it", async () => {
    const held = new HeldWrites();
    const groups = new CopyGroups(held);
    groups.store('org-a', 'm', 1, events('a1', 1));
    groups.store('org-a', 'm', 1, events('a2', 1));
    const grouped = [
      groups.store('org-a', 'm', 1, events('a3', 1)),
      groups.store('org-a', 'm', 1, events('a4', 1)),
    ];
    held.writes[0]?.end(true);
    await settled();
    held.writes[2]?.end(false);
    await expect(Promise.all(grouped)).resolves.toEqual([false, false]);
  });

  it('rejects the requests of a failed write only, and goes on writing the next', async () => {
    const held = new HeldWrites();
    const groups = new CopyGroups(held, 1);
    const failed = groups.store('org-a', 'm', 1, events('a1', 1));
    const next = groups.store('org-a', 'm', 1, events('a2', 1));
    expect(held.writes).toHaveLength(1);
    held.writes[0]?.end(new Error('connection lost'));
    await expect(failed).rejects.toThrow('connection lost');
    await settled();
    expect(held.writes[1]?.ids).toEqual(['a2-0']);
    held.writes[1]?.end(true);
    await expect(next).resolves.toBe(true);
  });

  it('keeps a write within its size, and a request of another month in a write of its own', async () => {
    const held = new HeldWrites();
    const groups = new CopyGroups(held, 1, 5);
    groups.store('org-a', '2026-11', 1, events('a1', 1));
    groups.store('org-a', '2026-11', 1, events('a2', 3));
    groups.store('org-a', '2026-12', 1, events('dec', 1));
    groups.store('org-a', '2026-11', 1, events('a3', 2));
    groups.store('org-a', '2026-11', 1, events('a4', 6));
    await held.endInTurn(4);
    expect(held.writes.map((w) => [w.month, w.ids.length])).toEqual([
      ['2026-11', 1],
      ['2026-11', 5],
      ['2026-12', 1],
      ['2026-11', 6],
    ]);
  });

  it('never lets a later request overtake the first of its month that did not fit', async () => {
    const held = new HeldWrites();
    const groups = new CopyGroups(held, 1, 5);
    groups.store('org-a', '2026-11', 1, events('a1', 1));
    groups.store('org-a', '2026-11', 1, events('a2', 3));
    groups.store('org-a', '2026-11', 1, events('a3', 4));
    groups.store('org-a', '2026-11', 1, events('a4', 1));
    await held.endInTurn(3);
    expect(held.writes.map((w) => w.ids.map((id) => id.split('-')[0]))).toEqual([
      ['a1'],
      ['a2', 'a2', 'a2'],
      ['a3', 'a3', 'a3', 'a3', 'a4'],
    ]);
  });
});
