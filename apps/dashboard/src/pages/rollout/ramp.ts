import type { Body } from '../../api/client.ts';

export type Ramp = Body<'/v1/experiments/{id}/rollout', 'get'>;
export type Evaluation = Ramp['evaluations'][number];
export type GuardrailReading = Evaluation['guardrails'][number];

const UNITS: Array<[RegExp, string, string]> = [
  [/(\d+)W/, 'week', 'weeks'],
  [/(\d+)D/, 'day', 'days'],
  [/T.*?(\d+)H/, 'hour', 'hours'],
  [/T.*?(\d+)M/, 'minute', 'minutes'],
  [/T.*?(\d+)S/, 'second', 'seconds'],
];

/** An ISO 8601 duration in words: "PT1H" → "1 hour", "P1DT12H" → "1 day 12 hours". */
export function holdText(iso: string): string {
  const parts = UNITS.flatMap(([re, one, many]) => {
    const m = re.exec(iso);
    if (m === null) return [];
    const n = Number(m[1]);
    return [`${n} ${n === 1 ? one : many}`];
  });
  return parts.length === 0 ? iso : parts.join(' ');
}

/** A coverage share as the page writes it: 0.05 → "5%", 0.001 → "0.1%". */
export const coverageText = (c: number) => `${Number((c * 100).toPrecision(3))}%`;

/** How long until `iso` from `now`, in the largest fitting units: "in 2 h 5 min", "due now". */
export function untilText(iso: string, now: number): string {
  const minutes = Math.ceil((Date.parse(iso) - now) / 60_000);
  if (minutes <= 0) return 'due now';
  const d = Math.floor(minutes / 1440);
  const h = Math.floor((minutes % 1440) / 60);
  const m = minutes % 60;
  const parts = [d ? `${d} d` : '', h ? `${h} h` : '', m ? `${m} min` : ''].filter(Boolean);
  return `in ${parts.join(' ')}`;
}

export type StepState = 'done' | 'current' | 'upcoming';

export const stepState = (ramp: Ramp, index: number): StepState =>
  index + 1 < ramp.step ? 'done' : index + 1 === ramp.step ? 'current' : 'upcoming';

/** Who paused the ramp and why, in one sentence; null while it is not paused. */
export function pausedSentence(ramp: Ramp): string | null {
  if (ramp.state !== 'paused') return null;
  const who = ramp.paused_by === 'guard' ? 'The guard paused the ramp' : 'The ramp was paused';
  const why = ramp.paused_reason ? `: ${ramp.paused_reason}` : ' (no reason was given)';
  return `${who} at step ${ramp.step} (${coverageText(ramp.coverage)} of eligible users)${why}.`;
}

/** "[-0.012, 0.034]" for an always-valid interval; "not computable" when either end is null. */
export function intervalText(g: GuardrailReading): string {
  if (g.ci_low === null || g.ci_high === null) return 'not computable';
  const f = (x: number) => Number(x.toPrecision(3)).toString().replace('-', '−');
  return `[${f(g.ci_low)}, ${f(g.ci_high)}]`;
}
