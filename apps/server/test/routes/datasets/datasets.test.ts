import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../../support/harness.ts';

/**
 * Datasets for offline evaluation: create and read, uploads in three formats with row errors
 * by line, replacement by id, versions that keep what they held, pages, bounds, and who may
 * call. The bounds are set small here (3 items, 1 KiB per item) so a test reaches them.
 */
let h: Harness;
let acme: Awaited<ReturnType<Harness['org']>>;
let other: Awaited<ReturnType<Harness['org']>>;

beforeAll(async () => {
  h = await startHarness({
    ARBITER_MAX_DATASET_ITEMS: '40',
    ARBITER_MAX_DATASET_ITEM_BYTES: '1024',
  });
  acme = await h.org('acme_datasets');
  other = await h.org('other_datasets');
});
afterAll(() => h.close());

const as = (token: string) => ({
  create: (body: object) => h.call(token, { method: 'POST', url: '/v1/datasets', payload: body }),
  upload: (id: string, type: string, payload: string) =>
    h.call(token, {
      method: 'POST',
      url: `/v1/datasets/${id}/items`,
      headers: { 'content-type': type },
      payload,
    }),
  items: (id: string, query = '') =>
    h.call(token, { method: 'GET', url: `/v1/datasets/${id}/items${query}` }),
  get: (id: string) => h.call(token, { method: 'GET', url: `/v1/datasets/${id}` }),
  remove: (id: string, itemId: string) =>
    h.call(token, {
      method: 'DELETE',
      url: `/v1/datasets/${id}/items/${encodeURIComponent(itemId)}`,
    }),
});

async function dataset(name: string): Promise<string> {
  const res = await as(acme.admin).create({ name });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id;
}

const idsOf = (res: { json(): { data: Array<{ id: string }> } }) =>
  res.json().data.map((item) => item.id);

describe('creating and reading datasets', () => {
  it('creates version 1 without items, reads it by id and by name, and lists it', async () => {
    const res = await as(acme.admin).create({ name: 'support-tickets', description: 'Q3' });
    expect(res.statusCode).toBe(201);
    const created = res.json();
    expect(res.headers.location).toBe(`/v1/datasets/${created.id}`);
    expect(created).toMatchObject({
      name: 'support-tickets',
      description: 'Q3',
      version: 1,
      item_count: 0,
    });
    expect((await as(acme.admin).get(created.id)).json()).toEqual(created);
    expect((await as(acme.admin).get('support-tickets')).json()).toEqual(created);
    const list = (await h.call(acme.admin, { method: 'GET', url: '/v1/datasets' })).json();
    expect(list.map((d: { id: string }) => d.id)).toContain(created.id);
  });

  it('refuses a name already used in the org, with a pointer, and admits it in another org', async () => {
    await dataset('taken');
    const res = await as(acme.admin).create({ name: 'taken' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      type: '/problems/dataset-name-taken',
      errors: [{ pointer: '#/name', detail: 'is already used in this org' }],
    });
    expect((await as(other.admin).create({ name: 'taken' })).statusCode).toBe(201);
  });

  it('refuses a body of the wrong shape with pointers, and a UUID-shaped name', async () => {
    const res = await as(acme.admin).create({ description: 1, extra: true });
    expect(res.statusCode).toBe(400);
    const pointers = res.json().errors.map((e: { pointer: string }) => e.pointer);
    expect(pointers).toEqual(expect.arrayContaining(['#/name', '#/description', '#/extra']));
    const uuid = await as(acme.admin).create({ name: '3f2504e0-4f89-11d3-9a0c-0305e82c3301' });
    expect(uuid.statusCode).toBe(400);
    expect(uuid.json().errors).toEqual([{ pointer: '#/name', detail: 'is shaped like a UUID' }]);
  });
});

describe('CSV uploads', () => {
  it('reads quoted multi-line fields and reports bad rows by the line they start on', async () => {
    const id = await dataset('csv');
    const csv = [
      'id,input,expected_output,group,var.tone,meta.source',
      'a,"What is 2+2?",4,math,terse,faq',
      'b,"A question',
      'over ""three""',
      'lines",,,,',
      'c,,no input,,,',
      'd,"text "after" quote",x,,,',
      'e,"Another',
      'multi-line one",yes,g,,',
      'f,too,few',
      'g,last,ok,,warm,',
    ].join('\r\n');
    const res = await as(acme.admin).upload(id, 'text/csv', csv);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      items: 4,
      errors: [
        { line: 6, detail: 'input: is required' },
        { line: 7, detail: 'input: text after the closing quote' },
        { line: 10, detail: 'expected 6 fields, found 3' },
      ],
      version: 2,
    });
    const items = (await as(acme.admin).items(id)).json();
    expect(items.data).toEqual([
      {
        id: 'a',
        input: 'What is 2+2?',
        expected_output: '4',
        variables: { tone: 'terse' },
        metadata: { source: 'faq' },
        group: 'math',
      },
      {
        id: 'b',
        input: 'A question\r\nover "three"\r\nlines',
        expected_output: null,
        variables: {},
        metadata: {},
        group: null,
      },
      expect.objectContaining({ id: 'e', input: 'Another\r\nmulti-line one', group: 'g' }),
      expect.objectContaining({ id: 'g', variables: { tone: 'warm' } }),
    ]);
    expect(items).toMatchObject({ has_more: false, version: 2 });
  });

  it('replaces an item whose id exists, keeps the count, and generates ids when absent', async () => {
    const id = await dataset('csv-replace');
    await as(acme.admin).upload(id, 'text/csv', 'id,input\nk1,first\nk2,second\n');
    const res = await as(acme.admin).upload(id, 'text/csv', 'id,input\nk1,changed\n,no id\n');
    expect(res.json()).toEqual({ items: 2, errors: [], version: 3 });
    expect((await as(acme.admin).get(id)).json()).toMatchObject({ version: 3, item_count: 3 });
    const latest = (await as(acme.admin).items(id)).json().data;
    expect(latest.find((i: { id: string }) => i.id === 'k1').input).toBe('changed');
    const generated = latest.find((i: { id: string }) => !['k1', 'k2'].includes(i.id));
    expect(generated.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(generated.input).toBe('no id');
  });

  it('refuses an unknown column as a whole, storing nothing', async () => {
    const id = await dataset('csv-unknown');
    const res = await as(acme.admin).upload(id, 'text/csv', 'id,input,colour\na,b,c\n');
    expect(res.statusCode).toBe(400);
    expect(res.json().type).toBe('/problems/import-format');
    expect(res.json().detail).toContain('"colour"');
    expect((await as(acme.admin).get(id)).json()).toMatchObject({ version: 1, item_count: 0 });
  });
});

describe('JSONL and JSON uploads', () => {
  it('JSONL: one item per line, bad lines reported by line and skipped', async () => {
    const id = await dataset('jsonl');
    const lines = [
      JSON.stringify({ id: 'j1', input: { question: 'hi' }, expected_output: { answer: 1 } }),
      '',
      '{"id": "j2", "input": ',
      JSON.stringify(['not', 'an', 'object']),
      JSON.stringify({ id: 'j3', input: '   ' }),
      JSON.stringify({ id: 'j4', input: 'ok', variables: 'x', colour: 1 }),
      JSON.stringify({ id: 'j5', input: 'fine', metadata: { k: 'v' }, group: 'g' }),
      JSON.stringify({ id: 'j6', input: '{"looks": "like JSON"}', expected_output: 'true' }),
    ].join('\n');
    const res = await as(acme.admin).upload(id, 'application/x-ndjson', lines);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.items).toBe(3);
    expect(body.version).toBe(2);
    expect(body.errors.map((e: { line: number }) => e.line)).toEqual([3, 4, 5, 6]);
    expect(body.errors[2].detail).toBe('input: is empty');
    expect(body.errors[3].detail).toBe(
      '"colour": not a known field; variables: must be a JSON object',
    );
    expect(idsOf(await as(acme.admin).items(id))).toEqual(['j1', 'j5', 'j6']);
    const [j1, , j6] = (await as(acme.admin).items(id)).json().data;
    expect(j1).toMatchObject({ input: { question: 'hi' }, expected_output: { answer: 1 } });
    // Strings that read as JSON stay strings.
    expect(j6).toMatchObject({ input: '{"looks": "like JSON"}', expected_output: 'true' });
  });

  it('JSON {items}: a bad item is reported by the line it starts on and its index', async () => {
    const id = await dataset('json');
    const payload = `{
  "items": [
    {"id": "x1", "input": "one"},
    {"id": "x2",
     "input": ""},
    {"id": "x3", "input": {"nested": [1, 2]}, "expected_output": 3}
  ]
}`;
    const res = await as(acme.admin).upload(id, 'application/json', payload);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      items: 2,
      errors: [{ line: 4, index: 1, detail: 'input: is empty' }],
      version: 2,
    });
    const x3 = (await as(acme.admin).items(id)).json().data[1];
    expect(x3).toMatchObject({ id: 'x3', input: { nested: [1, 2] }, expected_output: 3 });
  });

  it('JSON of the wrong shape is a 400 with pointers; malformed JSON a 400; nothing stored', async () => {
    const id = await dataset('json-shape');
    const wrong = await as(acme.admin).upload(id, 'application/json', '{"itemz": []}');
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().type).toBe('/problems/validation-error');
    expect(wrong.json().errors).toEqual(
      expect.arrayContaining([
        { pointer: '#/items', detail: 'is required' },
        { pointer: '#/itemz', detail: 'is not a known field' },
      ]),
    );
    const broken = await as(acme.admin).upload(id, 'application/json', '{"items": [');
    expect(broken.statusCode).toBe(400);
    expect(broken.json().type).toBe('/problems/malformed-json');
    const type = await as(acme.admin).upload(id, 'text/plain', 'id,input');
    expect(type.statusCode).toBe(415);
    expect((await as(acme.admin).get(id)).json()).toMatchObject({ version: 1, item_count: 0 });
  });
});

describe('versions', () => {
  it('a read at an old version returns its items, after a replace and a delete', async () => {
    const id = await dataset('versioned');
    const upload = (csv: string) => as(acme.admin).upload(id, 'text/csv', csv);
    expect((await upload('id,input\na,A1\nb,B1\nc,C1\n')).json().version).toBe(2);
    expect((await upload('id,input\nb,B2\n')).json().version).toBe(3);
    const removed = await as(acme.admin).remove(id, 'c');
    expect(removed.statusCode).toBe(200);
    expect(removed.json()).toMatchObject({ version: 4, item_count: 2 });

    const at = async (version: number) =>
      (await as(acme.admin).items(id, `?version=${version}`))
        .json()
        .data.map((i: { id: string; input: string }) => `${i.id}=${i.input}`);
    expect(await at(1)).toEqual([]);
    expect(await at(2)).toEqual(['a=A1', 'b=B1', 'c=C1']);
    expect(await at(3)).toEqual(['a=A1', 'b=B2', 'c=C1']);
    expect(await at(4)).toEqual(['a=A1', 'b=B2']);
    expect((await as(acme.admin).items(id)).json().version).toBe(4);

    const missing = await as(acme.admin).items(id, '?version=5');
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({
      type: '/problems/dataset-version-not-found',
      detail: 'Dataset "versioned" has versions 1 to 4, not 5',
    });
    const gone = await as(acme.admin).remove(id, 'c');
    expect(gone.statusCode).toBe(404);
    expect(gone.json().type).toBe('/problems/dataset-item-not-found');
    expect((await as(acme.admin).get(id)).json()).toMatchObject({ version: 4, item_count: 2 });
  });

  it('an upload where every row is bad mints no version', async () => {
    const id = await dataset('all-bad');
    const res = await as(acme.admin).upload(id, 'text/csv', 'id,input\na,\n');
    expect(res.json()).toEqual({
      items: 0,
      errors: [{ line: 2, detail: 'input: is required' }],
      version: 1,
    });
  });
});

describe('pages', () => {
  it('pages through the items by id with limit and starting_after, as Stripe lists do', async () => {
    const id = await dataset('paged');
    const ids = Array.from({ length: 25 }, (_, i) => `item-${String(i).padStart(2, '0')}`);
    const ndjson = ids
      .slice()
      .reverse()
      .map((key) => JSON.stringify({ id: key, input: key }))
      .join('\n');
    expect((await as(acme.admin).upload(id, 'application/x-ndjson', ndjson)).json().items).toBe(25);
    const seen: string[] = [];
    const hasMore: boolean[] = [];
    let after = '';
    for (;;) {
      const page = await as(acme.admin).items(id, `?limit=10${after}`);
      seen.push(...idsOf(page));
      hasMore.push(page.json().has_more);
      if (!page.json().has_more) break;
      after = `&starting_after=${seen[seen.length - 1]}`;
    }
    expect(seen).toEqual(ids);
    expect(hasMore).toEqual([true, true, false]);
    const bad = await as(acme.admin).items(id, '?limit=0');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].parameter).toBe('limit');
  });
});

describe('bounds', () => {
  it('reports items past ARBITER_MAX_DATASET_ITEMS as row errors; replacements still pass', async () => {
    const id = await dataset('bounded');
    const rows = Array.from({ length: 39 }, (_, i) => `r${i},x`).join('\n');
    expect((await as(acme.admin).upload(id, 'text/csv', `id,input\n${rows}\n`)).json().items).toBe(
      39,
    );
    const res = await as(acme.admin).upload(id, 'text/csv', 'id,input\nn1,x\nn2,x\nr0,y\n');
    expect(res.json()).toEqual({
      items: 2,
      errors: [
        {
          line: 3,
          detail:
            'the dataset would hold more than 40 items (ARBITER_MAX_DATASET_ITEMS); delete items or use another dataset',
        },
      ],
      version: 3,
    });
    expect((await as(acme.admin).get(id)).json().item_count).toBe(40);
  });

  it('reports an item over ARBITER_MAX_DATASET_ITEM_BYTES as a row error', async () => {
    const id = await dataset('big-items');
    const big = JSON.stringify({ id: 'big', input: 'x'.repeat(1100) });
    const small = JSON.stringify({ id: 'small', input: 'x'.repeat(900) });
    const res = await as(acme.admin).upload(id, 'application/x-ndjson', `${big}\n${small}`);
    expect(res.json().items).toBe(1);
    expect(res.json().errors).toEqual([
      {
        line: 1,
        detail: expect.stringMatching(
          /^the item is 11\d\d bytes as JSON, more than the 1024 an item may hold \(ARBITER_MAX_DATASET_ITEM_BYTES\)$/,
        ),
      },
    ]);
  });
});

describe('who may call', () => {
  it('admits the secret key, refuses the publishable key', async () => {
    const created = await h.ingest(acme.secret, {
      method: 'POST',
      url: '/v1/datasets',
      payload: { name: 'from-ci' },
    });
    expect(created.statusCode).toBe(201);
    const upload = await h.ingest(acme.secret, {
      method: 'POST',
      url: `/v1/datasets/${created.json().id}/items`,
      headers: { 'content-type': 'text/csv' },
      payload: 'input\nhello\n',
    });
    expect(upload.json()).toMatchObject({ items: 1, version: 2 });
    const refused = await h.ingest(acme.publishable, { method: 'GET', url: '/v1/datasets' });
    expect(refused.statusCode).toBe(401);
    expect(refused.json()).toMatchObject({
      type: '/problems/invalid-credential',
      detail: 'This route needs the secret key (svc_sk_); a publishable key may not use it',
    });
  });

  it("answers 404 for another org's dataset, by session and by key, and changes nothing", async () => {
    const id = await dataset('private');
    await as(acme.admin).upload(id, 'text/csv', 'id,input\np,secret\n');
    const theirs = as(other.admin);
    for (const res of [
      await theirs.get(id),
      await theirs.items(id),
      await theirs.upload(id, 'text/csv', 'id,input\np,overwritten\n'),
      await theirs.remove(id, 'p'),
      await h.ingest(other.secret, { method: 'GET', url: `/v1/datasets/${id}` }),
    ]) {
      expect(res.statusCode).toBe(404);
      expect(res.json().type).toBe('/problems/dataset-not-found');
    }
    const list = (await h.call(other.admin, { method: 'GET', url: '/v1/datasets' })).json();
    expect(list.map((d: { id: string }) => d.id)).not.toContain(id);
    expect((await as(acme.admin).items(id)).json().data[0].input).toBe('secret');
  });
});

describe('audit', () => {
  it('records the creation, each upload and each deletion, with the credential used', async () => {
    const id = await dataset('audited');
    await as(acme.admin).upload(id, 'text/csv', 'id,input\na,1\nb,2\n');
    await h.ingest(acme.secret, {
      method: 'POST',
      url: `/v1/datasets/${id}/items`,
      headers: { 'content-type': 'text/csv' },
      payload: 'id,input\na,3\n,\n',
    });
    await as(acme.admin).remove(id, 'b');
    const trail = (
      await h.call(acme.admin, { method: 'GET', url: `/v1/audit?target_id=${id}` })
    ).json();
    expect(
      trail.map((e: { action: string; details: object; actor: object | null }) => ({
        action: e.action,
        details: e.details,
        byUser: e.actor !== null,
      })),
    ).toEqual([
      {
        action: 'dataset.item_deleted',
        details: { item_id: 'b', version: 4, via: 'session' },
        byUser: true,
      },
      {
        action: 'dataset.items_uploaded',
        details: { version: 3, items: 1, replaced: 1, errors: 1, via: 'secret_key' },
        byUser: false,
      },
      {
        action: 'dataset.items_uploaded',
        details: { version: 2, items: 2, replaced: 0, errors: 0, via: 'session' },
        byUser: true,
      },
      {
        action: 'dataset.created',
        details: { name: 'audited', version: 1, via: 'session' },
        byUser: true,
      },
    ]);
  });
});
