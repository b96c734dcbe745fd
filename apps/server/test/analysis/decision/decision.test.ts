import { describe, expect, it } from 'vitest';
import {
  type DecisionInput,
  type DecisionPair,
  decide,
} from '../../../src/analysis/decision/decision.ts';
import { metricOutcome } from '../../../src/analysis/decision/metric-outcome.ts';

/** The decision table alone: runs built from outcomes, no statistics behind them. */
type Category = 'primary' | 'secondary' | 'guardrail';
type Outcome = DecisionPair['outcome'];

const METRICS: Record<string, { category: Category; direction: DecisionPair['direction'] }> = {
  checkout: { category: 'primary', direction: 'increase' },
  latency: { category: 'guardrail', direction: 'decrease' },
  tokens: { category: 'secondary', direction: 'decrease' },
};

function pair(
  metric: string,
  treatment: string,
  outcome: Outcome,
  lift: number | null = 0.1,
): DecisionPair {
  const m = METRICS[metric] ?? { category: 'primary', direction: 'increase' };
  return {
    metric,
    treatment,
    category: m.category,
    direction: m.direction,
    outcome,
    lift,
    effect: lift ?? 0.002,
  };
}

/** A computed run of `treatments`, each pair given as `metric::treatment` → outcome. */
function run(
  outcomes: Record<string, Outcome | [Outcome, number | null]>,
  metrics = ['checkout', 'latency', 'tokens'],
): DecisionInput {
  const results: Record<string, DecisionPair> = {};
  const treatments: string[] = [];
  for (const [key, value] of Object.entries(outcomes)) {
    const [metric, treatment] = key.split('::') as [string, string];
    if (!treatments.includes(treatment)) treatments.push(treatment);
    const [outcome, lift] = Array.isArray(value) ? value : [value, 0.1];
    results[key] = pair(metric, treatment, outcome, lift);
  }
  return {
    status: 'computed',
    srmP: 0.4,
    metrics: metrics.map((name) => ({
      name,
      category: METRICS[name]?.category ?? 'primary',
    })),
    treatments,
    results,
  };
}

const one = (primary: Outcome, guardrail: Outcome) =>
  decide(
    run({ 'checkout::fast': primary, 'latency::fast': guardrail, 'tokens::fast': 'inconclusive' }),
  );

describe('the decision table, one treatment', () => {
  it('ships a primary metric better with no guardrail broken', () => {
    const d = one('better', 'inconclusive');
    expect(d.recommendation).toBe('ship');
    expect(d.treatment).toBe('fast');
    expect(d.reasons[0]).toBe('Ship fast: checkout +10.0% (better), no guardrail broken.');
  });

  it('keeps control when the primary is better but a guardrail is broken', () => {
    const d = one('better', 'worse');
    expect(d.recommendation).toBe('keep_control');
    expect(d.treatment).toBeNull();
    expect(d.reasons.join(' ')).toContain('fast: guardrail latency is worse (+10.0%)');
  });

  it('keeps control when the primary is worse, with or without a guardrail broken', () => {
    for (const guardrail of ['inconclusive', 'better', 'worse'] as const) {
      const d = one('worse', guardrail);
      expect(d.recommendation).toBe('keep_control');
      expect(d.treatment).toBeNull();
      expect(d.reasons.join(' ')).toContain('primary checkout is worse (+10.0%)');
      expect(d.reasons.join(' ')).toMatch(/^Keep control: /);
    }
  });

  it('keeps collecting while the primary is inconclusive and no guardrail is broken', () => {
    for (const guardrail of ['inconclusive', 'better'] as const) {
      const d = one('inconclusive', guardrail);
      expect(d.recommendation).toBe('keep_collecting');
      expect(d.treatment).toBeNull();
      expect(d.reasons.join(' ')).toContain('fast: checkout inconclusive');
    }
  });

  it('keeps control when the primary is inconclusive and a guardrail is broken', () => {
    const d = one('inconclusive', 'worse');
    expect(d.recommendation).toBe('keep_control');
    expect(d.reasons.join(' ')).toContain('guardrail latency is worse');
  });

  it('does not ship when one primary metric is better and another worse', () => {
    const d = decide(
      run(
        { 'checkout::fast': 'better', 'revenue::fast': 'worse', 'latency::fast': 'inconclusive' },
        ['checkout', 'revenue', 'latency'],
      ),
    );
    expect(d.recommendation).toBe('keep_control');
    expect(d.reasons.join(' ')).toContain('primary revenue is worse');
  });

  it('ignores a secondary metric’s outcome', () => {
    const worse = decide(
      run({ 'checkout::fast': 'better', 'latency::fast': 'inconclusive', 'tokens::fast': 'worse' }),
    );
    expect(worse.recommendation).toBe('ship');
  });
});

describe('the decision table, the whole run', () => {
  it('says halted when the SRM gate halted, whatever else', () => {
    const d = decide({ ...run({ 'checkout::fast': 'better' }), status: 'srm_halted', srmP: 2e-6 });
    expect(d).toEqual({
      recommendation: 'halted',
      treatment: null,
      reasons: [
        'The SRM gate halted the run: the traffic split differs from the allocation (p = 2.0e-6 < 0.001), so no metric was tested. Find why users are missing from an arm before reading any result.',
      ],
    });
  });

  it('keeps collecting while a run is collecting', () => {
    const d = decide({ ...run({}), status: 'collecting', collecting: 'treatment has 12 of 200' });
    expect(d.recommendation).toBe('keep_collecting');
    expect(d.reasons).toEqual(['Collecting: treatment has 12 of 200.']);
  });

  it('keeps collecting without a primary metric, even with secondaries better', () => {
    const d = decide(
      run({ 'latency::fast': 'better', 'tokens::fast': 'better' }, ['latency', 'tokens']),
    );
    expect(d.recommendation).toBe('keep_collecting');
    expect(d.treatment).toBeNull();
    expect(d.reasons[0]).toContain('No primary metric');
  });

  it('keeps control without a primary metric when every treatment broke a guardrail', () => {
    const d = decide(
      run({ 'latency::fast': 'worse', 'tokens::fast': 'better' }, ['latency', 'tokens']),
    );
    expect(d.recommendation).toBe('keep_control');
    expect(d.reasons.join(' ')).toContain('fast: guardrail latency is worse');
  });
});

describe('the decision table, several treatments', () => {
  it('ships the shippable treatment with the largest lift on the first primary metric', () => {
    const d = decide(
      run(
        {
          'checkout::a': ['better', 0.05],
          'revenue::a': ['better', 0.5],
          'checkout::b': ['better', 0.12],
          'revenue::b': ['inconclusive', 0.01],
          'checkout::c': ['better', 0.3],
          'latency::c': 'worse',
        },
        ['checkout', 'revenue', 'latency'],
      ),
    );
    expect(d.recommendation).toBe('ship');
    expect(d.treatment).toBe('b');
    expect(d.reasons).toContain(
      'Of the shippable treatments (a, b), b has the largest lift on checkout (+12.0%).',
    );
  });

  it('ranks lifts by the first primary metric’s direction: the largest drop of a decrease metric', () => {
    const d = decide(
      run(
        {
          'speed::a': ['better', -0.1],
          'speed::b': ['better', -0.3],
          'speed::c': ['inconclusive', -0.5],
        },
        ['speed'],
      ),
    );
    // speed is primary here; its direction is decrease when stated so.
    const decreasing = decide({
      ...run({}, ['speed']),
      treatments: ['a', 'b'],
      results: {
        'speed::a': { ...pair('speed', 'a', 'better', -0.1), direction: 'decrease' },
        'speed::b': { ...pair('speed', 'b', 'better', -0.3), direction: 'decrease' },
      },
    });
    expect(d.treatment).toBe('a');
    expect(decreasing.treatment).toBe('b');
  });

  it('ships the one good treatment when the others are worse', () => {
    const d = decide(
      run({
        'checkout::a': 'worse',
        'checkout::b': 'better',
        'latency::b': 'inconclusive',
        'checkout::c': 'inconclusive',
        'latency::c': 'worse',
      }),
    );
    expect(d.recommendation).toBe('ship');
    expect(d.treatment).toBe('b');
  });

  it('keeps control only when every treatment is worse on a primary or broke a guardrail', () => {
    const all = decide(
      run({ 'checkout::a': 'worse', 'checkout::b': 'better', 'latency::b': 'worse' }),
    );
    expect(all.recommendation).toBe('keep_control');
    expect(all.reasons[0]).toBe(
      'Keep control: every treatment has a primary metric worse or a guardrail broken.',
    );
    const some = decide(run({ 'checkout::a': 'worse', 'checkout::b': 'inconclusive' }));
    expect(some.recommendation).toBe('keep_collecting');
    expect(some.reasons.join(' ')).toContain('a: primary checkout is worse');
    expect(some.reasons.join(' ')).toContain('b: checkout inconclusive');
  });

  it('names an effect without a lift (control mean 0) by its difference', () => {
    const d = decide(run({ 'checkout::fast': ['better', null] }));
    expect(d.recommendation).toBe('ship');
    expect(d.reasons[0]).toBe('Ship fast: checkout +0.002 (better), no guardrail broken.');
  });
});

describe('a pair’s outcome', () => {
  it('judges only a significant effect, by its sign against the direction', () => {
    expect(metricOutcome(true, 2, 'increase')).toBe('better');
    expect(metricOutcome(true, -2, 'increase')).toBe('worse');
    expect(metricOutcome(true, -2, 'decrease')).toBe('better');
    expect(metricOutcome(true, 2, 'decrease')).toBe('worse');
    expect(metricOutcome(false, 2, 'increase')).toBe('inconclusive');
    expect(metricOutcome(true, 0, 'increase')).toBe('inconclusive');
    expect(metricOutcome(true, Number.NaN, 'decrease')).toBe('inconclusive');
  });
});
