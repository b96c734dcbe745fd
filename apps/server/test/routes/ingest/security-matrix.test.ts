import { createHash } from 'node:crypto';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../../support/harness.ts';
import {
  documentedWith,
  expectSuccess,
  expectUnauthorized,
  storedEventsOf,
} from '../../support/security-matrix.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

interface KeyRouteCase {
  method: 'GET' | 'POST';
  path: string;
  scope: 'publishable' | 'secret';
  request: (experimentId: string, eventId: string) => InjectOptions;
  foreign: (res: LightMyRequestResponse) => void;
}

const event = (experimentId: string, eventId: string) => ({
  event_id: eventId,
  type: 'exposure',
  experiment_id: experimentId,
  user_id: 'matrix-user',
  timestamp: new Date().toISOString(),
});

/** One GenAI chat span as OTLP JSON, its ids derived from the event id. */
const otlpExport = (experimentId: string, eventId: string) => {
  const hex = createHash('sha256').update(eventId).digest('hex');
  const nanos = String(BigInt(Date.now()) * 1_000_000n);
  const attribute = (key: string, value: string) => ({ key, value: { stringValue: value } });
  const span = {
    traceId: hex.slice(0, 32),
    spanId: hex.slice(32, 48),
    name: 'chat',
    startTimeUnixNano: nanos,
    endTimeUnixNano: nanos,
    attributes: [
      attribute('gen_ai.operation.name', 'chat'),
      attribute('arbiter.experiment', experimentId),
      attribute('arbiter.user_id', 'matrix-user'),
    ],
  };
  return JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [span] }] }] });
};

const KEY_ROUTES: KeyRouteCase[] = [
  {
    method: 'POST',
    path: '/v1/assign',
    scope: 'publishable',
    request: (experimentId) => ({
      method: 'POST',
      url: '/v1/assign',
      payload: { experiment_id: experimentId, user_id: 'matrix-user' },
    }),
    foreign: (res) => {
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ variant: null, reason: 'unknown_experiment' });
    },
  },
  {
    method: 'GET',
    path: '/v1/config',
    scope: 'publishable',
    request: () => ({ method: 'GET', url: '/v1/config' }),
    foreign: (res) => {
      expect(res.statusCode).toBe(200);
      expect(res.json().experiments).toEqual([]);
    },
  },
  {
    method: 'POST',
    path: '/v1/events',
    scope: 'publishable',
    request: (experimentId, eventId) => ({
      method: 'POST',
      url: '/v1/events',
      payload: { events: [event(experimentId, eventId)] },
    }),
    foreign: (res) => {
      expect(res.statusCode).toBe(400);
      expect(res.json().detail).toContain('no experiment');
    },
  },
  {
    method: 'POST',
    path: '/v1/events/import',
    scope: 'secret',
    request: (experimentId, eventId) => ({
      method: 'POST',
      url: '/v1/events/import',
      headers: { 'content-type': 'application/x-ndjson' },
      payload: JSON.stringify(event(experimentId, eventId)),
    }),
    foreign: (res) => {
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ events: 0, errors: [{ line: 1 }] });
    },
  },
  {
    method: 'POST',
    path: '/v1/targeting-tallies',
    scope: 'secret',
    request: (experimentId) => ({
      method: 'POST',
      url: '/v1/targeting-tallies',
      payload: {
        tallies: [
          {
            experiment_id: experimentId,
            day: new Date().toISOString().slice(0, 10),
            matched: 1,
            excluded: 1,
          },
        ],
      },
    }),
    foreign: (res) => {
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({
        accepted: 0,
        rejected: [{ pointer: '#/tallies/0/experiment_id' }],
      });
    },
  },
  {
    method: 'POST',
    path: '/v1/otlp/v1/traces',
    scope: 'publishable',
    request: (experimentId, eventId) => ({
      method: 'POST',
      url: '/v1/otlp/v1/traces',
      headers: { 'content-type': 'application/json' },
      payload: otlpExport(experimentId, eventId),
    }),
    foreign: (res) => {
      expect(res.statusCode).toBe(202);
      expect(res.json().partialSuccess.rejectedSpans).toBe('1');
      expect(res.json().partialSuccess.errorMessage).toContain('no experiment');
    },
  },
];

describe('security matrix of the ingest plane (API keys)', () => {
  let a: Awaited<ReturnType<Harness['org']>>;
  let b: Awaited<ReturnType<Harness['org']>>;
  let rotated: string;
  let experimentA: string;
  let sequence = 0;
  const send = (route: KeyRouteCase, key: string | null, headers: Record<string, string> = {}) => {
    const options = route.request(experimentA, `matrix-${++sequence}`);
    return h.ingest(key, { ...options, headers: { ...options.headers, ...headers } });
  };

  beforeAll(async () => {
    a = await h.org('matrix_keys_a');
    b = await h.org('matrix_keys_b');
    experimentA = await h.experiment(a.admin);
    // A new key of a scope rotates the old one away.
    rotated = a.secret;
    const fresh = await h.call(a.admin, {
      method: 'POST',
      url: '/v1/keys',
      payload: { scope: 'secret' },
    });
    a.secret = fresh.json().key;
  });

  it('covers every API-key route the OpenAPI document lists', async () => {
    const covered = KEY_ROUTES.map((r) => `${r.method} ${r.path}`);
    // Routes that take a session as well have their own matrix (test/routes/datasets/).
    const either = await documentedWith(h, 'session');
    // OFREP's routes take a bearer key as well: their own tests (test/routes/ofrep/).
    const ofrep = await documentedWith(h, 'bearerKey');
    const keyOnly = (await documentedWith(h, 'apiKey')).filter(
      (op) => !either.includes(op) && !ofrep.includes(op),
    );
    expect(covered.sort()).toEqual(keyOnly.sort());
  });

  describe.each(KEY_ROUTES)('$method $path', (route) => {
    it('answers 401 without a key', async () => {
      expectUnauthorized(
        await send(route, null),
        '/problems/missing-credential',
        'Send your Arbiter API key in the X-API-Key header',
      );
    });

    it('answers 401 to another plane’s credential: a session token, or a key sent as Bearer', async () => {
      for (const bearer of [a.admin, a.secret]) {
        const res = await send(route, null, { authorization: `Bearer ${bearer}` });
        expectUnauthorized(res, '/problems/missing-credential');
      }
    });

    it('answers 401 to an unknown key and to a rotated-away key', async () => {
      expectUnauthorized(
        await send(route, 'svc_sk_not-a-key-of-anyone'),
        '/problems/invalid-credential',
        'This API key is not known',
      );
      expectUnauthorized(
        await send(route, rotated),
        '/problems/invalid-credential',
        'This API key was rotated away; use the current key of its scope',
      );
    });

    it('gives another org’s key nothing of this org’s experiment', async () => {
      const before = await storedEventsOf(h, experimentA);
      route.foreign(await send(route, b.secret));
      expect(await storedEventsOf(h, experimentA)).toBe(before);
    });

    if (route.scope === 'secret') {
      it('answers 401 to the publishable key and admits the secret key', async () => {
        expectUnauthorized(
          await send(route, a.publishable),
          '/problems/invalid-credential',
          'This route needs the secret key (svc_sk_); a publishable key may not use it',
        );
        expectSuccess(await send(route, a.secret));
      });
    } else {
      it('admits the publishable and the secret key', async () => {
        for (const key of [a.publishable, a.secret]) expectSuccess(await send(route, key));
      });
    }
  });
});
