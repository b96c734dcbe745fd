import { expect } from 'vitest';
import type { NodeArbiterOptions } from '../../src/index.ts';
import { Arbiter } from '../../src/index.ts';
import type { ArbiterEvent } from '../../src/internal/wire.ts';
import { memoryLogger } from './logger.ts';
import { until } from './wait.ts';

/**
 * A server the client scenarios run against: the fake in this folder today, the real Arbiter
 * server later (give it a key, an experiment and a way to read stored events back).
 */
export interface ArbiterTarget {
  baseUrl: string;
  apiKey: string;
  /** An experiment in the target's config whose variants cover every bucket. */
  experiment: { id: string; name: string; variants: readonly string[] };
  /** The stored copies of these events, as the server keeps them. */
  storedEvents(ids: readonly string[]): Promise<ArbiterEvent[]>;
  /** Publishes a newer config with one more experiment; resolves to that experiment's name. */
  publishNewExperiment(): Promise<string>;
}

const USERS = Array.from({ length: 200 }, (_, i) => `user-${i}`);

function clientFor(target: ArbiterTarget, extra: NodeArbiterOptions = {}) {
  return new Arbiter({
    apiKey: target.apiKey,
    baseUrl: target.baseUrl,
    logger: memoryLogger(),
    ...extra,
  });
}

/** Null before the config arrives, a variant of the experiment once `ready()` resolved. */
export async function scenarioConfigLoad(target: ArbiterTarget): Promise<void> {
  const client = clientFor(target, { experiments: [target.experiment.name] });
  try {
    // The fetch has not even started: construction returns before any I/O completes.
    expect(client.assign(target.experiment.name, 'user-0')).toBeNull();
    expect(await client.ready()).toBe(true);
    const seen = new Set(USERS.map((u) => client.assign(target.experiment.name, u)));
    for (const v of seen) expect(target.experiment.variants).toContain(v);
    expect(seen.size).toBeGreaterThan(1);
  } finally {
    await client.close();
  }
}

/** The name and the id address the same experiment and give every user the same variant. */
export async function scenarioAssignByNameAndId(target: ArbiterTarget): Promise<void> {
  const client = clientFor(target, { experiments: [target.experiment.id] });
  try {
    expect(await client.ready()).toBe(true);
    for (const user of USERS) {
      const byName = client.assign(target.experiment.name, user);
      expect(byName).not.toBeNull();
      expect(client.assign(target.experiment.id, user)).toBe(byName);
    }
  } finally {
    await client.close();
  }
}

/** Tracked events arrive once each, with the ids and timestamps taken at enqueue time. */
export async function scenarioEventsStored(target: ArbiterTarget): Promise<void> {
  const sent = recordingFetch();
  const client = clientFor(target, { trackExposures: false, fetch: sent.fetch });
  const before = Date.now();
  try {
    await client.ready();
    for (const user of USERS.slice(0, 5)) {
      client.track('business_event', {
        experiment_id: target.experiment.name,
        user_id: user,
        business_metric: 'conversion',
        value: 1,
        metadata: { arbiter_test: true },
      });
    }
    await client.flush();
    expect(client.stats()).toMatchObject({ sent: 5, dropped: 0, queued: 0 });
  } finally {
    await client.close();
  }
  const after = Date.now();
  const events = sent.events();
  expect(events).toHaveLength(5);
  expect(new Set(events.map((e) => e.event_id)).size).toBe(5);
  for (const e of events) {
    const at = Date.parse(e.timestamp);
    expect(at).toBeGreaterThanOrEqual(before);
    expect(at).toBeLessThanOrEqual(after);
  }
  const stored = await target.storedEvents(events.map((e) => e.event_id));
  expect(stored).toHaveLength(5);
  for (const e of events) {
    expect(stored.find((s) => s.event_id === e.event_id)).toMatchObject({
      type: 'business_event',
      user_id: e.user_id,
      timestamp: e.timestamp,
      business_metric: 'conversion',
      value: 1,
    });
  }
}

/** A fetch that remembers the events of every `POST /v1/events` it carried. */
export function recordingFetch() {
  const bodies: string[] = [];
  return {
    fetch: ((input: RequestInfo | URL, init?: RequestInit) => {
      if (init?.method === 'POST' && typeof init.body === 'string') bodies.push(init.body);
      return fetch(input, init);
    }) as typeof fetch,
    bodies,
    events: (): ArbiterEvent[] =>
      bodies.flatMap((b) => (JSON.parse(b) as { events: ArbiterEvent[] }).events),
  };
}

/** An ack reporting a newer config_version makes the client fetch the config at once. */
export async function scenarioRefreshOnNewerVersion(target: ArbiterTarget): Promise<void> {
  // Polling is pushed out of the way so that only the ack can explain the refresh.
  const client = clientFor(target, { pollIntervalMs: 3_600_000 });
  try {
    expect(await client.ready()).toBe(true);
    const added = await target.publishNewExperiment();
    expect(client.assign(added, 'user-1')).toBeNull();
    client.track('business_event', {
      experiment_id: target.experiment.name,
      user_id: 'user-1',
      business_metric: 'conversion',
      value: 1,
    });
    await client.flush();
    await until(() => client.assign(added, 'user-1') !== null);
  } finally {
    await client.close();
  }
}
