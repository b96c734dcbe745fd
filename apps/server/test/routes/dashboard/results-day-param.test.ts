import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isRealRunLabel } from '../../../src/schemas/run-label.ts';
import { type Harness, startHarness } from '../../support/harness.ts';

// A label with the right shape but no such moment is a bad parameter, not a run still being
// collected: the answer names `day` and says what a label looks like.

let h: Harness;
let admin: string;
let experimentId: string;

beforeAll(async () => {
  h = await startHarness();
  ({ admin } = await h.org('acme'));
  experimentId = await h.experiment(admin);
});
afterAll(() => h.close());

const IMPOSSIBLE = [
  '2026-02-30',
  '2026-13-01',
  '2026-00-10',
  '2025-02-29',
  'manual-2026-02-30T10:00:00.000Z',
  'manual-2026-01-01T24:00:00Z',
  'manual-2026-01-01T10:61:00Z',
  'manual-2026-01-01T10:00:60.5Z',
  // Real calendar days outside the years any run can be stored under.
  '0000-01-01',
  '0001-01-01',
  '1999-12-31',
  'manual-0000-01-01T00:00:00Z',
];

describe('the day parameter of the results routes', () => {
  for (const route of ['results', 'results/export']) {
    it.each(IMPOSSIBLE)(`${route}?day=%s answers a 400 naming day`, async (day) => {
      const res = await h.call(admin, {
        method: 'GET',
        url: `/v1/experiments/${experimentId}/${route}?day=${encodeURIComponent(day)}`,
      });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json()).toMatchObject({
        type: '/problems/validation-error',
        errors: [
          {
            parameter: 'day',
            detail: expect.stringContaining('must be a real UTC day YYYY-MM-DD'),
          },
        ],
      });
    });
  }

  it('a real day without a run is still collecting (404)', async () => {
    const res = await h.call(admin, {
      method: 'GET',
      url: `/v1/experiments/${experimentId}/results?day=2024-02-29`,
    });
    expect(res.statusCode).toBe(404);
    expect(res.json().type).toBe('/problems/results-collecting');
  });

  it('takes every real day and instant, leap days included', () => {
    for (const label of [
      '2024-02-29',
      '2026-12-31',
      '2000-01-01',
      '9999-12-31',
      'manual-2026-02-28T23:59:59.999Z',
      'manual-2026-01-01T00:00:00Z',
    ])
      expect(isRealRunLabel(label), label).toBe(true);
    for (const label of IMPOSSIBLE) expect(isRealRunLabel(label), label).toBe(false);
  });
});
