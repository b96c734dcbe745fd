import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { experimentConfig, type Harness, startHarness } from '../../support/harness.ts';

/**
 * Experiments on stored prompt versions: a variant references {name, version}; a missing one
 * is refused with a pointer; the config resolves references and carries labels; a stop with
 * ship releases the version to `production` (unless told not to), rollback leaves it.
 */
let h: Harness;
let acme: Awaited<ReturnType<Harness['org']>>;

beforeAll(async () => {
  h = await startHarness();
  acme = await h.org('acme_prompt_experiments');
});
afterAll(() => h.close());

const call = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: object) =>
  h.call(acme.admin, { method, url, ...(payload === undefined ? {} : { payload }) });
const config = async () =>
  (await h.ingest(acme.publishable, { method: 'GET', url: '/v1/config' })).json();

/** A prompt with text versions v1…vn and `production` on version 1. */
async function prompt(name: string, n: number) {
  expect((await call('POST', '/v1/prompts', { name })).statusCode).toBe(201);
  for (let i = 1; i <= n; i++) {
    const v = await call('POST', `/v1/prompts/${name}/versions`, { text: `${name} v${i}` });
    expect(v.statusCode).toBe(201);
  }
  expect(
    (await call('PUT', `/v1/prompts/${name}/labels/production`, { version: 1 })).statusCode,
  ).toBe(200);
}

function onPrompt(name: string, overrides: Record<string, unknown> = {}) {
  return experimentConfig({
    variants: [
      { key: 'control', prompt: { name, version: 1 } },
      { key: 'treatment', prompt: { name, version: 2 }, variables: { temperature: 0.2 } },
    ],
    ...overrides,
  });
}

async function experiment(name: string) {
  const res = await call('POST', '/v1/experiments', onPrompt(name));
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { id: string; name: string };
}

const labels = async (name: string) => (await call('GET', `/v1/prompts/${name}`)).json().labels;

describe('experiments on prompts', () => {
  it('refuses a reference to a missing prompt or version with a pointer, storing nothing', async () => {
    await prompt('faq', 2);
    const before = (await call('GET', '/v1/experiments')).json().length;
    const cases: Array<[object, string, string]> = [
      [
        { name: 'nope', version: 1 },
        '#/variants/1/prompt/name',
        'no prompt named "nope" in your org',
      ],
      [
        { name: 'faq', version: 3 },
        '#/variants/1/prompt/version',
        'prompt "faq" has no version 3 (its newest is 2)',
      ],
    ];
    for (const [ref, pointer, detail] of cases) {
      const body = experimentConfig({
        variants: [
          { key: 'control', prompt: 'inline' },
          { key: 'treatment', prompt: ref },
        ],
      });
      const res = await call('POST', '/v1/experiments', body);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({
        type: '/problems/validation-error',
        errors: [{ pointer, detail }],
      });
    }
    expect((await call('GET', '/v1/experiments')).json()).toHaveLength(before);
    const e = await experiment('faq');
    const change = await h.call(acme.admin, {
      method: 'PUT',
      url: `/v1/experiments/${e.id}`,
      payload: { variants: [{ key: 'control', prompt: { name: 'faq', version: 9 } }] },
    });
    expect(change.statusCode).toBe(400);
    expect(change.json().errors[0].pointer).toBe('#/variants/0/prompt/version');
    expect((await call('GET', `/v1/experiments/${e.id}`)).json().version).toBe(1);
  });

  it('resolves references in the config beside inline prompts, with each prompt’s labels', async () => {
    await prompt('greet', 3);
    const e = await experiment('greet');
    const inline = await call('POST', '/v1/experiments', experimentConfig());
    const got = await config();
    const entry = got.experiments.find((x: { id: string }) => x.id === e.id);
    expect(entry.variants).toEqual([
      { key: 'control', prompt: 'greet v1', prompt_ref: { name: 'greet', version: 1 } },
      {
        key: 'treatment',
        prompt: 'greet v2',
        prompt_ref: { name: 'greet', version: 2 },
        variables: { temperature: 0.2 },
      },
    ]);
    const plain = got.experiments.find((x: { id: string }) => x.id === inline.json().id);
    expect(plain.variants[0]).toEqual({
      key: 'control',
      prompt: 'You are helpful.',
      variables: { temperature: 0.7 },
    });
    // Version 3 is neither labelled nor referenced: not served, so not in the config.
    expect(got.prompts.greet).toEqual({
      labels: { production: 1 },
      versions: {
        '1': { text: 'greet v1', variables: [] },
        '2': { text: 'greet v2', variables: [] },
      },
    });
  });

  it('ship releases the shipped version to production, audited; rollback leaves it', async () => {
    await prompt('ship-me', 2);
    const shipped = await experiment('ship-me');
    const stop = await call('POST', `/v1/experiments/${shipped.id}/stop`, {
      conclusion: 'ship',
      variant: 'treatment',
    });
    expect(stop.statusCode, stop.body).toBe(200);
    expect(await labels('ship-me')).toEqual({ production: 2 });
    expect((await config()).prompts['ship-me'].labels).toEqual({ production: 2 });
    const promptId = (await call('GET', '/v1/prompts/ship-me')).json().id;
    const moves = (await call('GET', `/v1/audit?target_id=${promptId}`)).json();
    expect(moves[0]).toMatchObject({
      action: 'prompt.label_moved',
      details: { label: 'production', from: 1, to: 2, experiment_id: shipped.id },
    });
    const trail = (await call('GET', `/v1/audit?target_id=${shipped.id}`)).json();
    expect(trail[0]).toMatchObject({
      action: 'experiment.stop',
      details: { released_prompt: { name: 'ship-me', version: 2, from: 1 } },
    });

    await prompt('keep-me', 2);
    const kept = await experiment('keep-me');
    await call('POST', `/v1/experiments/${kept.id}/stop`, {
      conclusion: 'ship',
      variant: 'treatment',
      release_prompt: false,
    });
    expect(await labels('keep-me')).toEqual({ production: 1 });

    await prompt('roll-me', 2);
    const rolled = await experiment('roll-me');
    await call('POST', `/v1/experiments/${rolled.id}/stop`, { conclusion: 'rollback' });
    expect(await labels('roll-me')).toEqual({ production: 1 });
  });
});
