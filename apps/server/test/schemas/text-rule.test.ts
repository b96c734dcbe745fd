import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { experimentConfig, type Harness, startHarness } from '../support/harness.ts';
import { exposureOf, ingestProbe } from '../support/ingest-probe.ts';

// Class 3 of the probes: one text rule (no NUL, no unpaired surrogate) on every route's
// free text and ids, answered as a 400 problem with a pointer (401 for a token), never a 500.

let h: Harness;
let probe: ReturnType<typeof ingestProbe>;
let acme: Awaited<ReturnType<Harness['org']>>;
let exp: string;

beforeAll(async () => {
  h = await startHarness();
  probe = ingestProbe(h);
  acme = await h.org('text-acme');
  exp = await h.experiment(acme.admin, { name: 'text-exp' });
});
afterAll(() => h.close());

const RULE = 'contains a NUL character or an unpaired surrogate';
const NUL = 'a\u0000b';
const LONE = 'a\ud800b';

function expectProblem(
  res: { statusCode: number; headers: Record<string, unknown> },
  status: number,
) {
  expect(res.statusCode).toBe(status);
  expect(String(res.headers['content-type'])).toMatch(/^application\/problem\+json/);
}

describe('the text rule', () => {
  it('refuses NUL and lone surrogates in every free-text field of an experiment, with pointers; nothing is stored', async () => {
    const metric = experimentConfig().metrics[0];
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ description: NUL }, '#/description'],
      [{ salt: NUL }, '#/salt'],
      [{ salt: LONE }, '#/salt'],
      [
        { variants: [{ key: 'control', prompt: NUL }, { key: 'treatment' }] },
        '#/variants/0/prompt',
      ],
      [
        { variants: [{ key: 'control', variables: { note: NUL } }, { key: 'treatment' }] },
        '#/variants/0/variables/note',
      ],
      [
        { variants: [{ key: 'control', variables: { [LONE]: 1 } }, { key: 'treatment' }] },
        `#/variants/0/variables/${LONE}`,
      ],
      [{ metrics: [{ ...metric, description: NUL }] }, '#/metrics/0/description'],
    ];
    const before = (await h.call(acme.admin, { method: 'GET', url: '/v1/experiments' })).json();
    for (const [overrides, pointer] of cases) {
      const res = await h.call(acme.admin, {
        method: 'POST',
        url: '/v1/experiments',
        payload: experimentConfig(overrides),
      });
      expectProblem(res, 400);
      expect(res.json().errors).toContainEqual({ pointer, detail: RULE });
    }
    const update = await h.call(acme.admin, {
      method: 'PUT',
      url: `/v1/experiments/${exp}`,
      payload: { description: `x${LONE}` },
    });
    expectProblem(update, 400);
    expect(update.json().errors).toEqual([{ pointer: '#/description', detail: RULE }]);
    expect((await h.call(acme.admin, { method: 'GET', url: '/v1/experiments' })).json()).toEqual(
      before,
    );
  });

  it('refuses a lone surrogate or NUL in feedback instead of storing U+FFFD', async () => {
    for (const message of [LONE, NUL]) {
      const res = await h.call(acme.admin, {
        method: 'POST',
        url: '/v1/feedback',
        payload: { message },
      });
      expectProblem(res, 400);
      expect(res.json().errors).toContainEqual({ pointer: '#/message', detail: RULE });
    }
    const page = await h.call(acme.admin, {
      method: 'POST',
      url: '/v1/feedback',
      payload: { message: 'fine', page: NUL },
    });
    expectProblem(page, 400);
    expect((await h.call(acme.admin, { method: 'GET', url: '/v1/feedback' })).json()).toEqual([]);
  });

  it('assign refuses a user id or experiment id that events would refuse (400), and events do refuse it', async () => {
    for (const [body, pointer] of [
      [{ experiment_id: exp, user_id: NUL }, '#/user_id'],
      [{ experiment_id: exp, user_id: LONE }, '#/user_id'],
      [{ experiment_id: `text-exp${NUL}`, user_id: 'u' }, '#/experiment_id'],
    ] as const) {
      const res = await h.ingest(acme.publishable, {
        method: 'POST',
        url: '/v1/assign',
        payload: body,
      });
      expectProblem(res, 400);
      expect(res.json().errors).toEqual([{ pointer, detail: RULE }]);
    }
    const events = await probe.send(acme.publishable, [exposureOf(exp, 't-1', LONE)]);
    expectProblem(events, 400);
    expect(events.json().errors).toEqual([{ pointer: '#/events/0', detail: `user_id: ${RULE}` }]);
    // a surrogate pair is a character like any other: assigned and counted
    const pair = await h.ingest(acme.publishable, {
      method: 'POST',
      url: '/v1/assign',
      payload: { experiment_id: exp, user_id: 'emoji-😀' },
    });
    expect(pair.statusCode).toBe(200);
    expect(
      (await probe.send(acme.publishable, [exposureOf(exp, 't-2', 'emoji-😀')])).statusCode,
    ).toBe(202);
  });

  it('refuses the rule on the signed business-event route and in query and path parameters', async () => {
    const secret = (await h.call(acme.admin, { method: 'POST', url: '/v1/webhook-secrets' })).json()
      .secret;
    const raw = JSON.stringify({
      experiment_id: exp,
      user_id: NUL,
      business_metric: 'revenue',
      value: 1,
    });
    const signed = await probe.signedBusinessEvent(secret, raw);
    expectProblem(signed, 400);
    expect(signed.json().errors).toEqual([{ pointer: '#/user_id', detail: RULE }]);
    const audit = await h.call(acme.admin, { method: 'GET', url: '/v1/audit?target_id=a%00b' });
    expectProblem(audit, 400);
    const method = await h.call(acme.admin, {
      method: 'PUT',
      url: `/v1/experiments/${exp}/metrics/a%00b/method`,
      payload: { method: null },
    });
    expectProblem(method, 400);
    const results = await h.call(acme.admin, {
      method: 'GET',
      url: `/v1/experiments/${exp}/results?day=%00`,
    });
    expectProblem(results, 400);
  });

  it('a session token whose claims hold NUL or a lone surrogate answers 401, not 500', async () => {
    for (const claims of [
      { sub: 'text-user', org_id: 'text-acme', name: NUL },
      { sub: `text${NUL}`, org_id: 'text-acme' },
      { sub: 'text-user', org_id: `text${LONE}` },
      { sub: 'text-user', org_id: 'text-acme', email: `a${NUL}@example.com` },
    ]) {
      const token = await h.token(claims);
      const res = await h.call(token, { method: 'GET', url: '/v1/whoami' });
      expectProblem(res, 401);
      expect(res.json().detail).toBe(`A claim of the session token ${RULE}`);
    }
  });
});
