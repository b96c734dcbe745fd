import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { experimentConfig, type Harness, startHarness } from '../../support/harness.ts';

let h: Harness;
let acme: Awaited<ReturnType<Harness['org']>>;

beforeAll(async () => {
  h = await startHarness();
  acme = await h.org('layers');
});
afterAll(() => h.close());

const post = (url: string, payload: object) => h.call(acme.admin, { method: 'POST', url, payload });
const put = (url: string, payload: object) => h.call(acme.admin, { method: 'PUT', url, payload });
const get = (url: string) => h.call(acme.admin, { method: 'GET', url });
const config = async () =>
  (await h.ingest(acme.secret, { method: 'GET', url: '/v1/config' })).json();
const assign = async (experiment: string, user: string) =>
  (
    await h.ingest(acme.secret, {
      method: 'POST',
      url: '/v1/assign',
      payload: { experiment_id: experiment, user_id: user },
    })
  ).json() as { variant: string | null; reason?: string };

describe('layers', () => {
  it('creates, lists and reads a layer by id or name, audited, and ships it in the config', async () => {
    const before = (await config()).config_version;
    expect((await config()).layers).toBeUndefined();
    const res = await post('/v1/layers', { name: 'chat', salt: 'layer-chat', bucket_count: 1000 });
    expect(res.statusCode).toBe(201);
    const layer = res.json();
    expect(layer).toMatchObject({
      name: 'chat',
      salt: 'layer-chat',
      bucket_count: 1000,
      bucket_map: [],
      free_buckets: 1000,
      version: 1,
    });
    expect(res.headers.location).toBe(`/v1/layers/${layer.id}`);
    expect((await get(`/v1/layers/${layer.id}`)).json()).toEqual(layer);
    expect((await get('/v1/layers/chat')).json()).toEqual(layer);
    expect((await get('/v1/layers')).json()).toEqual([layer]);
    const served = await config();
    expect(served.config_version).toBeGreaterThan(before);
    expect(served.layers).toEqual([{ name: 'chat', salt: 'layer-chat', bucket_count: 1000 }]);
    const audit = (await get(`/v1/audit?target_id=${layer.id}`)).json();
    expect(audit.map((e: { action: string }) => e.action)).toEqual(['layer.created']);
  });

  it('refuses a taken name, a UUID-shaped name and a salt with ":"; 404 for an unknown layer', async () => {
    const taken = await post('/v1/layers', { name: 'chat', salt: 'x', bucket_count: 10 });
    expect(taken.statusCode).toBe(400);
    expect(taken.json()).toMatchObject({
      type: '/problems/layer-name-taken',
      errors: [{ pointer: '#/name', detail: 'is already used in this org' }],
    });
    const uuid = await post('/v1/layers', {
      name: '00000000-0000-4000-8000-000000000000',
      salt: 'x',
      bucket_count: 10,
    });
    expect(uuid.statusCode).toBe(400);
    expect(uuid.json().errors[0].pointer).toBe('#/name');
    const colon = await post('/v1/layers', { name: 'other', salt: 'a:b', bucket_count: 10 });
    expect(colon.statusCode).toBe(400);
    expect(colon.json().errors[0].pointer).toBe('#/salt');
    const missing = await get('/v1/layers/nope');
    expect(missing.statusCode).toBe(404);
    expect(missing.json().type).toBe('/problems/layer-not-found');
  });

  it('allocates ⌊bucket_count × layer_weight ÷ 100⌋ never-used buckets, lowest first, shown in the bucket map', async () => {
    const tone = await post(
      '/v1/experiments',
      experimentConfig({ name: 'chat-tone', layer: 'chat', layer_weight: 30.05 }),
    );
    expect(tone.statusCode).toBe(201);
    expect(tone.json()).toMatchObject({
      layer: 'chat',
      layer_weight: 30.05,
      layer_ranges: [{ start: 0, end: 300 }],
    });
    const length = await post(
      '/v1/experiments',
      experimentConfig({ name: 'chat-length', layer: 'chat', layer_weight: 50 }),
    );
    expect(length.json().layer_ranges).toEqual([{ start: 300, end: 800 }]);
    const layer = (await get('/v1/layers/chat')).json();
    expect(layer.bucket_map).toEqual([
      {
        experiment_id: tone.json().id,
        experiment: 'chat-tone',
        start: 0,
        end: 300,
        retired: false,
      },
      {
        experiment_id: length.json().id,
        experiment: 'chat-length',
        start: 300,
        end: 800,
        retired: false,
      },
    ]);
    expect(layer.free_buckets).toBe(200);
    const served = (await config()).experiments.filter((e: { layer?: string }) => e.layer);
    expect(served.map((e: object) => e)).toEqual([
      expect.objectContaining({
        name: 'chat-tone',
        layer: 'chat',
        layer_ranges: [{ start: 0, end: 300 }],
      }),
      expect.objectContaining({
        name: 'chat-length',
        layer: 'chat',
        layer_ranges: [{ start: 300, end: 800 }],
      }),
    ]);
  });

  it('never gives one user to two experiments of the layer (2,000 users through /v1/assign)', async () => {
    let tone = 0;
    let length = 0;
    for (let i = 0; i < 2000; i++) {
      const user = `user-${i}`;
      const a = await assign('chat-tone', user);
      const b = await assign('chat-length', user);
      expect(a.variant === null || b.variant === null).toBe(true);
      if (a.variant !== null) tone += 1;
      if (b.variant !== null) length += 1;
      if (a.variant === null) expect(['not_in_layer', 'not_enrolled']).toContain(a.reason);
    }
    // both experiments take users: about 30 % and 50 % of the layer, all of each arm's buckets
    expect(tone).toBeGreaterThan(450);
    expect(tone).toBeLessThan(750);
    expect(length).toBeGreaterThan(850);
    expect(length).toBeLessThan(1150);
  });

  it('refuses a layer_weight the never-used buckets cannot meet, saying how many are free', async () => {
    const res = await post(
      '/v1/experiments',
      experimentConfig({ name: 'chat-greedy', layer: 'chat', layer_weight: 25 }),
    );
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      type: '/problems/layer-full',
      needed_buckets: 250,
      free_buckets: 200,
      errors: [{ pointer: '#/layer_weight' }],
    });
    expect((await get('/v1/experiments/chat-greedy')).statusCode).toBe(404);
    expect((await get('/v1/layers/chat')).json().free_buckets).toBe(200);
  });

  it('shrinking retires the highest buckets for good; growing takes never-used ones', async () => {
    const shrink = await put('/v1/experiments/chat-tone', { layer_weight: 20 });
    expect(shrink.statusCode).toBe(200);
    expect(shrink.json().layer_ranges).toEqual([{ start: 0, end: 200 }]);
    const grow = await put('/v1/experiments/chat-tone', { layer_weight: 25 });
    expect(grow.statusCode).toBe(200);
    // [200, 300) stays retired: the 50 buckets come from the never-used [800, 1000)
    expect(grow.json().layer_ranges).toEqual([
      { start: 0, end: 200 },
      { start: 800, end: 850 },
    ]);
    const layer = (await get('/v1/layers/chat')).json();
    expect(
      layer.bucket_map.map((r: { start: number; end: number; retired: boolean }) => [
        r.start,
        r.end,
        r.retired,
      ]),
    ).toEqual([
      [0, 200, false],
      [200, 300, true],
      [300, 800, false],
      [800, 850, false],
    ]);
    expect(layer.free_buckets).toBe(150);
    // each version keeps the layer buckets it owned
    const versions = (await get('/v1/experiments/chat-tone/versions')).json();
    expect(versions.map((v: { layer_ranges: unknown }) => v.layer_ranges)).toEqual([
      [
        { start: 0, end: 200 },
        { start: 800, end: 850 },
      ],
      [{ start: 0, end: 200 }],
      [{ start: 0, end: 300 }],
    ]);
    const audit = (await get(`/v1/audit?target_id=${layer.id}`)).json();
    expect(audit.map((e: { action: string }) => e.action)).toContain('layer.buckets_changed');
  });

  it('refuses a PUT that moves the experiment to another layer, and layer without weight', async () => {
    await post('/v1/layers', { name: 'search', salt: 'layer-search', bucket_count: 100 });
    const move = await put('/v1/experiments/chat-tone', { layer: 'search' });
    expect(move.statusCode).toBe(400);
    expect(move.json()).toMatchObject({
      type: '/problems/frozen-field',
      errors: [{ pointer: '#/layer', detail: 'must stay "chat"' }],
    });
    const outside = await post('/v1/experiments', experimentConfig({ name: 'outside' }));
    const join = await put('/v1/experiments/outside', { layer: 'chat', layer_weight: 5 });
    expect(join.statusCode).toBe(400);
    expect(join.json().errors[0].pointer).toBe('#/layer');
    expect(outside.json()).not.toHaveProperty('layer_ranges');
    const noWeight = await post('/v1/experiments', experimentConfig({ name: 'w', layer: 'chat' }));
    expect(noWeight.statusCode).toBe(400);
    expect(noWeight.json().errors).toEqual([
      { pointer: '#/layer_weight', detail: 'is required with layer' },
    ]);
    const unknown = await post(
      '/v1/experiments',
      experimentConfig({ name: 'u', layer: 'nope', layer_weight: 1 }),
    );
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().errors).toEqual([
      { pointer: '#/layer', detail: 'no layer is named "nope"' },
    ]);
  });
});
