import { describe, expect, it } from 'vitest';
import type { Results } from '../../src/api/client.ts';
import { runCsv } from '../../src/pages/results/export-run.ts';

const result = (over: Record<string, unknown>) => ({
  metric: 'latency',
  treatment: 'b',
  control: 'a',
  test: 'welch_t',
  effect: -12.5,
  ci_low: -20,
  ci_high: -5,
  lift: -0.1,
  p_value: 0.001,
  p_value_fdr: 0.002,
  significant: true,
  srm_p: 0.5,
  window_days: 14,
  preliminary: false,
  category: 'primary',
  direction: 'decrease',
  outcome: 'better',
  sequential: null,
  ...over,
});

describe('the CSV export of a run', () => {
  it('writes a header and one CRLF-terminated row per metric and treatment, labelled with the run', () => {
    const run = {
      computed_for: '2026-11-22',
      decision: { recommendation: 'ship', treatment: 'b', reasons: [] },
      results: { 'latency::b': result({}) },
    } as unknown as Results;
    expect(runCsv(run)).toBe(
      'run,metric,treatment,control,test,effect,ci_low,ci_high,lift,p_value,p_value_fdr,significant,srm_p,window_days,preliminary,' +
        'direction,outcome,guardrail_violated,sequential_p_value,sequential_p_value_fdr,sequential_ci_low,sequential_ci_high,mde,users_needed_per_arm,days_to_decision,recommendation,recommended_treatment,dimension,slice,exploratory\r\n' +
        '2026-11-22,latency,b,a,welch_t,-12.5,-20,-5,-0.1,0.001,0.002,true,0.5,14,false,decrease,better,false,,,,,,,,ship,b,,,false\r\n',
    );
  });

  it('writes a manual run’s sequential values, a broken guardrail and the wait of a collecting run', () => {
    const run = {
      computed_for: 'manual-2026-11-22T10:00:00Z',
      decision: { recommendation: 'keep_control', treatment: null, reasons: [] },
      results: {
        'latency::b': result({
          category: 'guardrail',
          outcome: 'worse',
          sequential: { p_value: 0.01, p_value_fdr: 0.02, ci_low: 1, ci_high: 9 },
          mde: 0.05,
          users_needed_per_arm: 880,
          days_to_decision: 6,
        }),
      },
    } as unknown as Results;
    expect(runCsv(run).split('\r\n')[1]).toBe(
      'manual-2026-11-22T10:00:00Z,latency,b,a,welch_t,-12.5,-20,-5,-0.1,0.001,0.002,true,0.5,14,false,decrease,worse,true,0.01,0.02,1,9,0.05,880,6,keep_control,,,,false',
    );
  });

  it('quotes fields holding a comma, a quote or a newline (RFC 4180) and leaves nulls empty', () => {
    const run = {
      computed_for: 'manual-2026-11-22T10:00:00Z',
      decision: { recommendation: 'keep_collecting', treatment: null, reasons: [] },
      results: { x: result({ metric: 'say "hi", twice', treatment: 'line\nbreak', lift: null }) },
    } as unknown as Results;
    const row = runCsv(run).split('\r\n')[1];
    expect(row).toBe(
      'manual-2026-11-22T10:00:00Z,"say ""hi"", twice","line\nbreak",a,welch_t,-12.5,-20,-5,,0.001,0.002,true,0.5,14,false,decrease,better,false,,,,,,,,keep_collecting,,,,false',
    );
  });

  it('adds one row per metric, treatment and slice of the breakdown "Split by" shows, exploratory', () => {
    const run = {
      computed_for: '2026-11-22',
      decision: { recommendation: 'ship', treatment: 'b', reasons: [] },
      results: { 'latency::b': result({}) },
    } as unknown as Results;
    // A slice's result as the server presents it: raw p-value only, no FDR, outcome or sequence.
    const sliced = (over: Record<string, unknown>) => {
      const { p_value_fdr, significant, outcome, sequential, ...rest } = result(over);
      return { ...rest, exploratory: true };
    };
    const breakdown = {
      dimension: 'model',
      exploratory: true,
      slices: [
        { value: 'gpt-a', results: { 'latency::b': sliced({ p_value: 0.04, effect: -3 }) } },
        {
          value: '(other)',
          results: { 'latency::b': sliced({ category: 'guardrail', p_value: 0.5, lift: null }) },
        },
      ],
    } as unknown as NonNullable<Results['breakdown']>;
    const lines = runCsv(run, breakdown).split('\r\n');
    expect(lines).toHaveLength(5);
    expect(lines[0]?.endsWith(',recommended_treatment,dimension,slice,exploratory')).toBe(true);
    expect(lines[1]).toBe(runCsv(run).split('\r\n')[1]);
    expect(lines[2]).toBe(
      '2026-11-22,latency,b,a,welch_t,-3,-20,-5,-0.1,0.04,,,0.5,14,false,decrease,,false,,,,,,,,ship,b,model,gpt-a,true',
    );
    expect(lines[3]).toBe(
      '2026-11-22,latency,b,a,welch_t,-12.5,-20,-5,,0.5,,,0.5,14,false,decrease,,false,,,,,,,,ship,b,model,(other),true',
    );
    expect(lines[4]).toBe('');
  });
});
