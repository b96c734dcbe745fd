import { describe, expect, it } from 'vitest';
import {
  coverageText,
  type GuardrailReading,
  holdText,
  intervalText,
  pausedSentence,
  type Ramp,
  stepState,
  untilText,
} from '../../src/pages/rollout/ramp.ts';
import { lastAnswer } from '../../src/pages/webhooks/last-answer.ts';
import type { Delivery } from '../../src/pages/webhooks/queries.ts';

const ramp = (over: Partial<Ramp>): Ramp =>
  ({
    state: 'running',
    step: 2,
    steps: [
      { coverage: 0.01, hold: 'PT1H' },
      { coverage: 0.05, hold: 'PT6H' },
      { coverage: 0.25, hold: 'P1D' },
    ],
    coverage: 0.05,
    paused_by: null,
    paused_reason: null,
    ...over,
  }) as Ramp;

describe('the ramp in words', () => {
  it('writes holds as ISO 8601 durations read aloud', () => {
    expect(holdText('PT1H')).toBe('1 hour');
    expect(holdText('PT30M')).toBe('30 minutes');
    expect(holdText('P1DT12H')).toBe('1 day 12 hours');
    expect(holdText('P2W')).toBe('2 weeks');
    expect(holdText('PT1M30S')).toBe('1 minute 30 seconds');
  });

  it('writes coverage as a percentage of three significant digits', () => {
    expect(coverageText(0.01)).toBe('1%');
    expect(coverageText(0.001)).toBe('0.1%');
    expect(coverageText(1)).toBe('100%');
    expect(coverageText(1 / 3)).toBe('33.3%');
  });

  it('says how long until the next step, rounding up to the minute', () => {
    const now = Date.parse('2026-11-29T10:00:00Z');
    expect(untilText('2026-11-29T11:00:00Z', now)).toBe('in 1 h');
    expect(untilText('2026-11-29T10:00:30Z', now)).toBe('in 1 min');
    expect(untilText('2026-11-30T12:05:00Z', now)).toBe('in 1 d 2 h 5 min');
    expect(untilText('2026-11-29T09:59:00Z', now)).toBe('due now');
  });

  it('marks steps done, current and to come around the 1-based current step', () => {
    const r = ramp({});
    expect([0, 1, 2].map((i) => stepState(r, i))).toEqual(['done', 'current', 'upcoming']);
  });

  it('says who paused the ramp and why, and nothing while it runs', () => {
    expect(pausedSentence(ramp({}))).toBeNull();
    expect(
      pausedSentence(ramp({ state: 'paused', paused_by: 'guard', paused_reason: 'SRM' })),
    ).toBe('The guard paused the ramp at step 2 (5% of eligible users): SRM.');
    expect(pausedSentence(ramp({ state: 'paused', paused_by: 'user' }))).toBe(
      'The ramp was paused at step 2 (5% of eligible users) (no reason was given).',
    );
  });

  it('writes an interval with true minus signs, or says it was not computable', () => {
    // Only the interval's ends are read; the reading's other fields may grow.
    const g = (ci_low: number | null, ci_high: number | null) =>
      ({ metric: 'm', treatment: 't', ci_low, ci_high }) as GuardrailReading;
    expect(intervalText(g(-0.0123456, 2))).toBe('[−0.0123, 2]');
    expect(intervalText(g(null, 2))).toBe('not computable');
  });
});

describe("a delivery's last answer", () => {
  const d = (over: Partial<Delivery>) =>
    ({ attempts: 1, last_response_status: 200, last_error: null, ...over }) as Delivery;
  it('is the status, the error beside it, or that none was tried', () => {
    expect(lastAnswer(d({}))).toBe('HTTP 200');
    expect(lastAnswer(d({ last_response_status: 500, last_error: 'answered 500' }))).toBe(
      'HTTP 500: answered 500',
    );
    expect(lastAnswer(d({ last_response_status: null, last_error: 'timed out' }))).toBe(
      'no answer: timed out',
    );
    expect(lastAnswer(d({ attempts: 0 }))).toBe('not attempted yet');
  });
});
