import type { MetricDirection } from '@arbiter/contract';
import type { Decision, MetricResult } from '../../schemas/analysis-run.ts';
import type { RunStatus } from '../compute/run-record.ts';

/** What the decision reads of one (metric, treatment) pair. */
export type DecisionPair = Pick<
  MetricResult,
  'metric' | 'treatment' | 'outcome' | 'lift' | 'effect' | 'direction'
> & { category: string };

export interface DecisionInput {
  status: RunStatus;
  srmP: number | null;
  /** What is still missing, for a collecting run (a clause: "treatment has 12 of 200"). */
  collecting?: string;
  /** The experiment's metrics in config order: the first primary one breaks ties. */
  metrics: ReadonlyArray<{ name: string; category: string }>;
  /** The treatments in allocation order. */
  treatments: readonly string[];
  /** Keyed `<metric>::<treatment>`. */
  results: Readonly<Record<string, DecisionPair>>;
}

interface TreatmentVerdict {
  treatment: string;
  better: DecisionPair[];
  worse: DecisionPair[];
  violations: DecisionPair[];
  inconclusive: DecisionPair[];
}

/** `+7.5%` from the lift, or the effect itself when there is no lift (control mean 0). */
export function change(p: Pick<DecisionPair, 'lift' | 'effect'>): string {
  const signed = (x: number, text: string) => `${x >= 0 ? '+' : ''}${text}`;
  if (p.lift !== null && Number.isFinite(p.lift))
    return signed(p.lift, `${(p.lift * 100).toFixed(1)}%`);
  return signed(p.effect, `${Number(p.effect.toPrecision(3))}`);
}

function verdictOf(input: DecisionInput, treatment: string): TreatmentVerdict {
  const pairs = input.metrics
    .map((m) => input.results[`${m.name}::${treatment}`])
    .filter((p): p is DecisionPair => p !== undefined);
  const primary = pairs.filter((p) => p.category === 'primary');
  return {
    treatment,
    better: primary.filter((p) => p.outcome === 'better'),
    worse: primary.filter((p) => p.outcome === 'worse'),
    inconclusive: primary.filter((p) => p.outcome === 'inconclusive'),
    violations: pairs.filter((p) => p.category === 'guardrail' && p.outcome === 'worse'),
  };
}

const shippable = (v: TreatmentVerdict) =>
  v.better.length > 0 && v.worse.length === 0 && v.violations.length === 0;
const rejected = (v: TreatmentVerdict) => v.worse.length > 0 || v.violations.length > 0;

/** One sentence per treatment: what decided it, naming the metrics. */
function sentence(v: TreatmentVerdict): string {
  const parts = [
    ...v.violations.map((p) => `guardrail ${p.metric} is worse (${change(p)})`),
    ...v.worse.map((p) => `primary ${p.metric} is worse (${change(p)})`),
    ...v.better.map((p) => `primary ${p.metric} is better (${change(p)})`),
  ];
  if (v.inconclusive.length > 0)
    parts.push(`${v.inconclusive.map((p) => p.metric).join(', ')} inconclusive`);
  return `${v.treatment}: ${parts.length > 0 ? parts.join('; ') : 'no metric decided'}.`;
}

/** A lift ranked in the metric's direction: a larger drop ranks higher for a decrease metric. */
function rank(p: DecisionPair | undefined): number {
  if (p === undefined || p.lift === null || !Number.isFinite(p.lift))
    return Number.NEGATIVE_INFINITY;
  return (p.direction as MetricDirection) === 'decrease' ? -p.lift : p.lift;
}

function ship(input: DecisionInput, candidates: TreatmentVerdict[], first: string): Decision {
  let best = candidates[0] as TreatmentVerdict;
  for (const c of candidates.slice(1))
    if (
      rank(input.results[`${first}::${c.treatment}`]) >
      rank(input.results[`${first}::${best.treatment}`])
    )
      best = c;
  const lead = input.results[`${first}::${best.treatment}`];
  const shown = lead?.outcome === 'better' ? lead : (best.better[0] as DecisionPair);
  const reasons = [
    `Ship ${best.treatment}: ${shown.metric} ${change(shown)} (better), no guardrail broken.`,
  ];
  if (candidates.length > 1)
    reasons.push(
      `Of the shippable treatments (${candidates.map((c) => c.treatment).join(', ')}), ${best.treatment} has the largest lift on ${first}${lead ? ` (${change(lead)})` : ''}.`,
    );
  return { recommendation: 'ship', treatment: best.treatment, reasons };
}

/**
 * The run's recommendation (docs/decisions/analysis.md#recommendations): `halted` when the SRM gate halted;
 * `ship` the treatment with a primary metric better, none worse and no guardrail broken (of
 * several, the largest lift on the first primary metric, in its direction); `keep_control`
 * when every treatment has a primary metric worse or a guardrail broken; `keep_collecting`
 * otherwise, which is also where a run without a primary metric ends unless every treatment
 * broke a guardrail.
 */
export function decide(input: DecisionInput): Decision {
  if (input.status === 'srm_halted')
    return {
      recommendation: 'halted',
      treatment: null,
      reasons: [
        `The SRM gate halted the run: the traffic split differs from the allocation (p = ${(input.srmP ?? 0).toExponential(1)} < 0.001), so no metric was tested. Find why users are missing from an arm before reading any result.`,
      ],
    };
  if (input.status === 'collecting')
    return {
      recommendation: 'keep_collecting',
      treatment: null,
      reasons: [`Collecting: ${input.collecting ?? 'not every arm has enough evaluated events'}.`],
    };
  const verdicts = input.treatments.map((t) => verdictOf(input, t));
  const first = input.metrics.find((m) => m.category === 'primary')?.name;
  const candidates = verdicts.filter(shippable);
  if (first !== undefined && candidates.length > 0) return ship(input, candidates, first);
  const details = verdicts.map(sentence);
  if (verdicts.length > 0 && verdicts.every(rejected))
    return {
      recommendation: 'keep_control',
      treatment: null,
      reasons: [
        'Keep control: every treatment has a primary metric worse or a guardrail broken.',
        ...details,
      ],
    };
  const why =
    first === undefined
      ? 'No primary metric: a run recommends shipping only on a primary metric (category primary), so keep collecting.'
      : 'Keep collecting: no treatment has a primary metric better without one worse or a guardrail broken.';
  return { recommendation: 'keep_collecting', treatment: null, reasons: [why, ...details] };
}
