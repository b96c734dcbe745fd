import { describe, expect, it } from 'vitest';
import { EventQueue } from '../src/internal/event-queue.ts';
import type { ArbiterEvent } from '../src/internal/wire.ts';

const event = (n: number, type: ArbiterEvent['type'] = 'exposure'): ArbiterEvent => ({
  event_id: `e${n}`,
  type,
  experiment_id: 'x',
  user_id: 'u',
  timestamp: new Date(0).toISOString(),
});

const ids = (q: EventQueue) => q.take(q.length).map((e) => e.event_id);

describe('EventQueue', () => {
  it('holds up to its capacity and counts what it drops', () => {
    const q = new EventQueue(3);
    expect([1, 2, 3, 4, 5].map((n) => q.push(event(n)))).toEqual([
      'queued',
      'queued',
      'queued',
      'dropped',
      'dropped',
    ]);
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

  it('gives a model_call or business_event arriving when full the place of the oldest exposure', () => {
    const q = new EventQueue(3);
    q.push(event(1, 'model_call'));
    q.push(event(2));
    q.push(event(3));
    expect(q.push(event(4, 'business_event'))).toBe('replaced');
    expect(q.push(event(5, 'model_call'))).toBe('replaced');
    expect(q.dropped).toBe(2);
    expect(ids(q)).toEqual(['e1', 'e4', 'e5']);
  });

  it('drops an arriving exposure, and any event when no exposure is queued', () => {
    const q = new EventQueue(2);
    q.push(event(1, 'model_call'));
    q.push(event(2, 'business_event'));
    expect(q.push(event(3))).toBe('dropped');
    expect(q.push(event(4, 'model_call'))).toBe('dropped');
    expect(q.dropped).toBe(2);
    expect(ids(q)).toEqual(['e1', 'e2']);
  });
});
