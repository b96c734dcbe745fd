import { describe, expect, it } from 'vitest';
import { EventQueue } from '../src/internal/event-queue.ts';
import type { ArbiterEvent } from '../src/internal/wire.ts';

const event = (n: number): ArbiterEvent => ({
  event_id: `e${n}`,
  type: 'exposure',
  experiment_id: 'x',
  user_id: 'u',
  timestamp: new Date(0).toISOString(),
});

describe('EventQueue', () => {
  it('holds up to its capacity and counts what it drops', () => {
    const q = new EventQueue(3);
    expect([1, 2, 3, 4, 5].map((n) => q.push(event(n)))).toEqual([true, true, true, false, false]);
    expect(q.length).toBe(3);
    expect(q.dropped).toBe(2);
  });

  it('hands out the oldest first', () => {
    const q = new EventQueue(10);
    for (let n = 0; n < 5; n++) q.push(event(n));
    expect(q.take(2).map((e) => e.event_id)).toEqual(['e0', 'e1']);
    expect(q.take(10).map((e) => e.event_id)).toEqual(['e2', 'e3', 'e4']);
    expect(q.length).toBe(0);
  });
});
