import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Arbiter } from '../src/index.ts';
import type { FakeArbiter } from './support/fake-arbiter.ts';
import { fakeTarget } from './support/fake-target.ts';
import { configOf, twoArms } from './support/fixtures.ts';
import { memoryLogger } from './support/logger.ts';
import {
  type ArbiterTarget,
  scenarioAssignByNameAndId,
  scenarioConfigLoad,
  scenarioEventsStored,
  scenarioRefreshOnNewerVersion,
} from './support/scenarios.ts';
import { until } from './support/wait.ts';

let target: ArbiterTarget;
let fake: FakeArbiter;

beforeEach(async () => {
  ({ target, fake } = await fakeTarget());
});
afterEach(async () => {
  await fake.close();
});

describe('against the fake Arbiter server', () => {
  it('loads the config; ready() resolves; assign returns a variant', () =>
    scenarioConfigLoad(target));
  it('assigns the same variant by name and by id', () => scenarioAssignByNameAndId(target));
  it('stores tracked events once each with their ids and timestamps', () =>
    scenarioEventsStored(target));
  it('refreshes at once when an ack reports a newer config_version', async () => {
    await scenarioRefreshOnNewerVersion(target);
    // Exactly two fetches: the initial one and the one the ack triggered.
    expect(fake.configRequests.map((r) => r.status)).toEqual([200, 200]);
  });

  it('polls with If-None-Match and gets 304 while the config is unchanged', async () => {
    const client = new Arbiter({
      apiKey: fake.apiKey,
      baseUrl: fake.baseUrl,
      pollIntervalMs: 10,
      logger: memoryLogger(),
    });
    try {
      await client.ready();
      await until(() => fake.configRequests.length >= 4);
      const [first, ...rest] = fake.configRequests;
      expect(first).toEqual({ ifNoneMatch: null, status: 200 });
      for (const r of rest) expect(r).toEqual({ ifNoneMatch: '"1"', status: 304 });
      // A change is picked up by the next poll, with the new ETag from then on.
      fake.setConfig(configOf(2, twoArms({ split: 0 })));
      await until(() => client.assign('checkout-prompt', 'user-1') === 'concise');
      const seen = fake.configRequests.length;
      await until(() => fake.configRequests.length >= seen + 2);
      expect(fake.configRequests.at(-1)).toEqual({ ifNoneMatch: '"2"', status: 304 });
    } finally {
      await client.close();
    }
  });

  it('ready() resolves false when a prefetched experiment is not in the config', async () => {
    const logger = memoryLogger();
    const client = new Arbiter({
      apiKey: fake.apiKey,
      baseUrl: fake.baseUrl,
      experiments: ['checkout-prompt', 'no-such-experiment'],
      logger,
    });
    try {
      expect(await client.ready()).toBe(false);
      expect(logger.lines.join('\n')).toContain('no-such-experiment');
      expect(client.assign('checkout-prompt', 'user-1')).not.toBeNull();
    } finally {
      await client.close();
    }
  });

  it('ready() resolves false with a wrong key, and assign stays null', async () => {
    const logger = memoryLogger();
    const client = new Arbiter({ apiKey: 'svc_pk_wrong', baseUrl: fake.baseUrl, logger });
    try {
      expect(await client.ready()).toBe(false);
      expect(client.assign('checkout-prompt', 'user-1')).toBeNull();
      expect(logger.lines.join('\n')).toContain('HTTP 401');
    } finally {
      await client.close();
    }
  });

  it('sends the key as X-API-Key on every request', async () => {
    const keys: (string | null)[] = [];
    const client = new Arbiter({
      apiKey: fake.apiKey,
      baseUrl: fake.baseUrl,
      logger: memoryLogger(),
      fetch: (input, init) => {
        keys.push(new Headers(init?.headers).get('x-api-key'));
        return fetch(input, init);
      },
    });
    await client.ready();
    client.assign('checkout-prompt', 'user-1');
    await client.close();
    expect(keys.length).toBeGreaterThanOrEqual(2);
    expect(new Set(keys)).toEqual(new Set([fake.apiKey]));
  });
});
