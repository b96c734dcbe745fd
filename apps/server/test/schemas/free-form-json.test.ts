import { FREE_FORM_JSON_MAX_BYTES, FREE_FORM_JSON_MAX_DEPTH } from '@arbiter/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exposureOf, type TwoOrgs, twoOrgs } from '../support/ingest-probe.ts';

// Class 2 of the probes (class 3 of the defences): one depth and size limit for every
// free-form JSON field, so a deep value is one rejected event, never a 500 that sinks its batch.

// assigned in beforeAll
let { h, probe, acme, other, exp, otherExp } = {} as TwoOrgs;

beforeAll(async () => {
  ({ h, probe, acme, other, exp, otherExp } = await twoOrgs('ff'));
});
afterAll(() => h.close());

/** `{"a":{"a":...{"a":1}}}` with `depth` objects, as JSON text (too deep for JSON.stringify). */
const nestedText = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
const nested = (depth: number): Record<string, unknown> => JSON.parse(nestedText(depth));
/** An event as JSON text with `metadataText` spliced in as its metadata. */
const withMetadata = (event: object, metadataText: string) =>
  `${JSON.stringify(event).slice(0, -1)},"metadata":${metadataText}}`;
const sendText = (key: string, eventsText: string[]) =>
  h.ingest(key, {
    method: 'POST',
    url: '/v1/events',
    headers: { 'content-type': 'application/json' },
    payload: `{"events":[${eventsText.join(',')}]}`,
  });

describe('free-form JSON limits', () => {
  it('a batch with one too-deep event answers 202, lists it in rejected and stores the good one', async () => {
    const before = await probe.metered(acme.orgId);
    for (const depth of [5_000, 100_000]) {
      const res = await sendText(acme.publishable, [
        withMetadata(exposureOf(exp, `ff-deep-${depth}`, 'ff-user'), nestedText(depth)),
        JSON.stringify(exposureOf(exp, `ff-good-${depth}`, 'ff-user')),
      ]);
      expect(res.statusCode).toBe(202);
      expect(res.json().accepted).toBe(1);
      expect(res.json().rejected).toEqual([
        {
          index: 0,
          detail: `metadata${'/a'.repeat(FREE_FORM_JSON_MAX_DEPTH)}: nested deeper than ${FREE_FORM_JSON_MAX_DEPTH} levels`,
        },
      ]);
    }
    expect(
      await probe.storedIds(['ff-deep-5000', 'ff-good-5000', 'ff-deep-100000', 'ff-good-100000']),
    ).toEqual(['ff-good-100000', 'ff-good-5000']);
    expect(await probe.metered(acme.orgId)).toBe(before + 2);
    // another org's events still fold beside them
    await probe.send(other.publishable, [exposureOf(otherExp, 'ff-other', 'ff-other-user')]);
    expect(await h.ctx.worker.foldAll()).toBe(3);
    expect(await probe.foldedExposures('ff-user')).toBe(2);
    expect(await probe.foldedExposures('ff-other-user')).toBe(1);
  });

  it('takes metadata at the limits and refuses one level deeper or one byte larger', async () => {
    const pad = (bytes: number) => ({ p: 'x'.repeat(bytes - '{"p":""}'.length) });
    const res = await probe.send(acme.secret, [
      { ...exposureOf(exp, 'ff-depth-ok', 'u'), metadata: nested(FREE_FORM_JSON_MAX_DEPTH) },
      { ...exposureOf(exp, 'ff-depth-no', 'u'), metadata: nested(FREE_FORM_JSON_MAX_DEPTH + 1) },
      { ...exposureOf(exp, 'ff-size-ok', 'u'), metadata: pad(FREE_FORM_JSON_MAX_BYTES) },
      { ...exposureOf(exp, 'ff-size-no', 'u'), metadata: pad(FREE_FORM_JSON_MAX_BYTES + 1) },
    ]);
    expect(res.statusCode).toBe(202);
    expect(res.json().rejected.map((r: { index: number }) => r.index)).toEqual([1, 3]);
    expect(res.json().rejected[1].detail).toBe(
      `metadata: ${FREE_FORM_JSON_MAX_BYTES + 1} bytes as JSON, more than ${FREE_FORM_JSON_MAX_BYTES}`,
    );
    expect(
      await probe.storedIds(['ff-depth-ok', 'ff-depth-no', 'ff-size-ok', 'ff-size-no']),
    ).toEqual(['ff-depth-ok', 'ff-size-ok']);
  });

  it('a JSON, NDJSON or CSV import reports the deep row by line and keeps the others', async () => {
    const deep = (id: string) => withMetadata(exposureOf(exp, id, 'u'), nestedText(5_000));
    const json = `[\n${JSON.stringify(exposureOf(exp, 'ff-imp-1', 'u'))},\n${deep('ff-imp-deep')},\n${JSON.stringify(exposureOf(exp, 'ff-imp-2', 'u'))}\n]`;
    const fromJson = await probe.importAs(acme.secret, 'application/json', json);
    expect(fromJson.statusCode).toBe(200);
    expect(fromJson.json().events).toBe(2);
    expect(fromJson.json().errors).toEqual([
      {
        line: 3,
        index: 1,
        detail: expect.stringMatching(/^metadata(\/a)+: nested deeper than 32 levels$/),
      },
    ]);
    const ndjson = `${deep('ff-nd-deep')}\n${JSON.stringify(exposureOf(exp, 'ff-nd-1', 'u'))}\n`;
    const fromNdjson = await probe.importAs(acme.secret, 'application/x-ndjson', ndjson);
    expect(fromNdjson.json()).toMatchObject({ events: 1, errors: [{ line: 1 }] });
    const cell = JSON.stringify(JSON.stringify(nested(40)));
    const csv = `event_id,type,experiment_id,user_id,timestamp,metadata\nff-csv-deep,exposure,ff-exp,u,${new Date().toISOString()},${cell}\nff-csv-1,exposure,ff-exp,u,${new Date().toISOString()},\n`;
    const fromCsv = await probe.importAs(acme.secret, 'text/csv', csv);
    expect(fromCsv.json()).toMatchObject({ events: 1, errors: [{ line: 2 }] });
    expect(
      await probe.storedIds([
        'ff-imp-1',
        'ff-imp-2',
        'ff-imp-deep',
        'ff-nd-deep',
        'ff-nd-1',
        'ff-csv-deep',
        'ff-csv-1',
      ]),
    ).toEqual(['ff-csv-1', 'ff-imp-1', 'ff-imp-2', 'ff-nd-1']);
  });

  it('experiment variables over the limit are a 400 problem with a pointer, and nothing is stored', async () => {
    const listBefore = (await h.call(acme.admin, { method: 'GET', url: '/v1/experiments' })).json();
    for (const depth of [5_000, 2_000, FREE_FORM_JSON_MAX_DEPTH + 1]) {
      const config = JSON.stringify({
        name: 'ff-vars',
        salt: 's',
        bucket_count: 100,
        allocation: [{ variant: 'control', weight: 100 }],
        metrics: [],
        variants: [{ key: 'control', variables: {} }],
      });
      const res = await h.call(acme.admin, {
        method: 'POST',
        url: '/v1/experiments',
        headers: { 'content-type': 'application/json' },
        payload: config.replace('"variables":{}', `"variables":${nestedText(depth)}`),
      });
      expect(res.statusCode).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.json().errors).toEqual([
        {
          pointer: `#/variants/0/variables${'/a'.repeat(FREE_FORM_JSON_MAX_DEPTH)}`,
          detail: `nested deeper than ${FREE_FORM_JSON_MAX_DEPTH} levels`,
        },
      ]);
    }
    const update = await h.call(acme.admin, {
      method: 'PUT',
      url: `/v1/experiments/${exp}`,
      payload: {
        variants: [
          { key: 'control', variables: { big: 'x'.repeat(FREE_FORM_JSON_MAX_BYTES) } },
          { key: 'treatment' },
        ],
      },
    });
    expect(update.statusCode).toBe(400);
    expect(update.json().errors[0].pointer).toBe('#/variants/0/variables');
    const listAfter = (await h.call(acme.admin, { method: 'GET', url: '/v1/experiments' })).json();
    expect(listAfter).toEqual(listBefore);
  });
});
