import { describe, expect, it } from 'vitest';
import type { Experiment, SummaryEntry } from '../../src/api/client.ts';
import { listVerdict } from '../../src/pages/experiments/verdict.ts';
import {
  actionOutcome,
  actionsFor,
  controlOf,
  servedBy,
  servingSentence,
  stopBody,
  stopDefault,
  stopOutcome,
} from '../../src/pages/lifecycle/lifecycle.ts';

const entry = (over: Record<string, unknown>) =>
  ({
    srm: { halted: false, p_value: 0.5 },
    decision: { recommendation: 'keep_collecting', treatment: null, reasons: [] },
    results: {},
    guardrail_violation_count: 0,
    ...over,
  }) as unknown as SummaryEntry;

const primary = (treatment: string, days: number | null, category = 'primary') => ({
  metric: 'checkout',
  treatment,
  category,
  days_to_decision: days,
});

const STOP = {
  conclusion: 'ship',
  served_variant: 'concise',
  reason: 'won on checkout',
  stopped_at: '2026-11-29T11:40:12.345Z',
  stopped_by: 'analyst@example.com',
} as const;

const experiment = (over: Record<string, unknown>) =>
  ({
    name: 'checkout-copy',
    status: 'running',
    stop: null,
    variants: [{ key: 'control' }, { key: 'concise' }],
    allocation: [
      { variant: 'control', weight: 50 },
      { variant: 'concise', weight: 50 },
    ],
    ...over,
  }) as unknown as Experiment;

describe('the last verdict in the experiments list', () => {
  it('names the treatment to ship, and says keep control or SRM halted', () => {
    const ship = { recommendation: 'ship', treatment: 'concise', reasons: [] };
    expect(listVerdict(entry({ decision: ship }))).toEqual({
      text: 'Ship concise',
      tone: 'better',
    });
    const keep = { recommendation: 'keep_control', treatment: null, reasons: [] };
    expect(listVerdict(entry({ decision: keep })).text).toBe('Keep control');
    const halted = { recommendation: 'halted', treatment: null, reasons: [] };
    expect(listVerdict(entry({ decision: halted, srm: { halted: true } })).text).toBe('SRM halted');
  });

  it('says how long to keep collecting: the longest primary estimate, guardrails aside', () => {
    const results = {
      a: primary('concise', 6),
      b: primary('verbose', 2),
      c: primary('concise', 40, 'guardrail'),
      d: primary('verbose', null),
    };
    expect(listVerdict(entry({ results })).text).toBe('Keep collecting, about 6 days');
    expect(listVerdict(entry({ results: { a: primary('x', 1) } })).text).toBe(
      'Keep collecting, about 1 day',
    );
    expect(listVerdict(entry({ results: { a: primary('x', 0) } })).text).toBe(
      'Keep collecting, enough users already',
    );
    expect(listVerdict(entry({ results: { a: primary('x', null) } })).text).toBe('Keep collecting');
  });
});

describe('the lifecycle’s buttons and confirmations', () => {
  it('offers the transitions the server allows from each state', () => {
    expect(actionsFor('draft')).toEqual(['start', 'archive']);
    expect(actionsFor('running')).toEqual(['stop']);
    expect(actionsFor('stopped')).toEqual(['archive']);
    expect(actionsFor('archived')).toEqual(['unarchive']);
  });

  it('serves the shipped variant, or the control (the first variant) otherwise', () => {
    const e = experiment({});
    expect(controlOf(e)).toBe('control');
    expect(controlOf(experiment({ variants: undefined }))).toBe('control');
    expect(servedBy('ship', 'concise', 'control')).toBe('concise');
    expect(servedBy('rollback', 'concise', 'control')).toBe('control');
    expect(servedBy('inconclusive', '', 'control')).toBe('control');
    expect(stopOutcome('concise')).toContain('every eligible user gets concise');
  });

  it('preselects ship with the recommended treatment only when the last run says ship', () => {
    const ship = { recommendation: 'ship', treatment: 'concise', reasons: [] };
    expect(stopDefault(entry({ decision: ship }))).toEqual({
      conclusion: 'ship',
      variant: 'concise',
    });
    expect(stopDefault(entry({}))).toEqual({ conclusion: '', variant: '' });
    expect(stopDefault(undefined)).toEqual({ conclusion: '', variant: '' });
  });

  it('says what users get after start, archive and unarchive', () => {
    expect(actionOutcome('start', experiment({ status: 'draft' }))).toContain(
      'split as allocated (control 50%, concise 50%)',
    );
    const stopped = experiment({ status: 'stopped', stop: STOP });
    expect(actionOutcome('archive', stopped)).toContain('Users stop getting concise');
    expect(actionOutcome('archive', experiment({ status: 'draft' }))).toContain('as a draft');
    expect(actionOutcome('unarchive', { ...stopped, status: 'archived' })).toContain(
      'Back to stopped: From their next config poll, every eligible user gets concise',
    );
    expect(actionOutcome('unarchive', experiment({ status: 'archived' }))).toContain(
      'Back to draft',
    );
  });

  it('states what a stopped experiment serves, since when and by whom', () => {
    expect(servingSentence(STOP)).toBe(
      'Every eligible user gets concise since 2026-11-29 11:40 UTC: shipped concise by analyst@example.com.',
    );
    expect(servingSentence({ ...STOP, conclusion: 'rollback', served_variant: 'control' })).toBe(
      'Every eligible user gets control since 2026-11-29 11:40 UTC: rolled back by analyst@example.com.',
    );
  });

  it('sends the variant only with ship, and a reason only when one is written', () => {
    expect(stopBody({ conclusion: 'ship', variant: 'concise', reason: '  ' })).toEqual({
      conclusion: 'ship',
      variant: 'concise',
    });
    expect(stopBody({ conclusion: 'rollback', variant: 'concise', reason: ' too slow ' })).toEqual({
      conclusion: 'rollback',
      reason: 'too slow',
    });
  });
});
