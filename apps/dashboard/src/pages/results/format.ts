/**
 * A number for people: `digits` significant digits below 1,000, whole numbers with thousands
 * separators from 1,000 on (1,040, never 1.04e+3), and small ones as decimals (0.000123).
 */
export function num(x: number | null | undefined, digits = 3): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return '—';
  if (x === 0) return '0';
  if (Math.abs(x) >= 1000) return Math.round(x).toLocaleString('en-US');
  return Number(x.toPrecision(digits)).toLocaleString('en-US', { maximumSignificantDigits: 21 });
}

export function pValue(p: number): string {
  if (p < 0.0001) return '< 0.0001';
  return p.toFixed(4);
}

export function percent(x: number | null | undefined): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return '—';
  return `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%`;
}

/** Rows of a run grouped by metric, in the experiment's metric order (others after). */
export function byMetric<R extends { metric: string }>(
  results: Record<string, R>,
  order: readonly string[] = [],
) {
  const groups = new Map<string, R[]>(order.map((m) => [m, []]));
  for (const r of Object.values(results)) {
    const g = groups.get(r.metric) ?? [];
    g.push(r);
    groups.set(r.metric, g);
  }
  return [...groups.entries()].filter(([, rows]) => rows.length > 0);
}

const MINUS = '\u2212';
/** Kinds whose per-user value is a share (0 to 1): arms as percentages, effects in points. */
const RATE_KINDS: readonly string[] = ['conversion', 'retention', 'error_rate'];

/** A signed number for an effect: "+" or a true minus sign, three significant digits. */
function signed(x: number, digits = 3): string {
  const body = num(Math.abs(x), digits);
  if (x === 0) return body;
  return `${x > 0 ? '+' : MINUS}${body}`;
}

/**
 * A per-arm value in the metric's unit: rates as a percentage, latency in ms, cost in dollars,
 * tokens as tokens; scores, revenue and values as plain numbers (their unit is the org's own).
 */
export function armValue(kind: string, x: number | null | undefined): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return '—';
  if (RATE_KINDS.includes(kind)) return `${(x * 100).toFixed(1)}%`;
  if (kind === 'latency') return `${num(x)} ms`;
  if (kind === 'cost') return `$${num(x)}`;
  if (kind === 'tokens') return `${num(x)} tokens`;
  return num(x);
}

/**
 * A difference (treatment − control) in the metric's unit: rates in percentage points
 * ("+7.5 pts"), latency in ms ("−70 ms"), cost in dollars ("+$0.002"), tokens ("+12 tokens").
 */
export function effectValue(kind: string, x: number | null | undefined): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return '—';
  if (RATE_KINDS.includes(kind)) return `${signed(x * 100)} pts`;
  if (kind === 'latency') return `${signed(x)} ms`;
  if (kind === 'cost') {
    const s = signed(x);
    return x === 0 ? '$0' : `${s[0]}$${s.slice(1)}`;
  }
  if (kind === 'tokens') return `${signed(x)} tokens`;
  return signed(x);
}

/** An interval in the metric's unit: "−80.1 ms to −52.3 ms". */
export function intervalValue(kind: string, low: number, high: number): string {
  return `${effectValue(kind, low)} to ${effectValue(kind, high)}`;
}

/** Which way is better, as an arrow and words for the metric's heading. */
export function directionLabel(direction: 'increase' | 'decrease'): string {
  return direction === 'increase' ? '↑ higher is better' : '↓ lower is better';
}

/** "about 1 more day", "about 6 more days". */
export function moreDays(days: number): string {
  return `about ${days} more day${days === 1 ? '' : 's'}`;
}

/** The parts of a metric definition its display name is made from. */
interface NamedMetric {
  name: string;
  kind: string;
  quantile?: number;
  numerator?: { of: string; business_metric?: string };
  denominator?: { of: string; business_metric?: string };
}

/** "p95", "p99.9", "p50": a quantile level as people name it. */
function percentile(q: number): string {
  return `p${Number((q * 100).toFixed(2))}`;
}

/** A ratio part in words: "cost", "tokens", "calls", "purchases", "purchase value". */
function ratioPart(part: NonNullable<NamedMetric['numerator']>, singular: boolean): string {
  if (part.business_metric !== undefined)
    return part.of === 'value' ? `${part.business_metric} value` : part.business_metric;
  if (part.of === 'calls') return singular ? 'call' : 'calls';
  if (part.of === 'errors') return singular ? 'error' : 'errors';
  return part.of;
}

/**
 * How a metric is named on the page: a quantile metric by its percentile and kind ("p95
 * latency"), a ratio by its parts ("cost per conversion", "tokens per call"); any other metric
 * by its name.
 */
export function metricTitle(m: NamedMetric): string {
  if (m.quantile !== undefined) return `${percentile(m.quantile)} ${m.kind}`;
  if (m.kind === 'ratio' && m.numerator && m.denominator)
    return `${ratioPart(m.numerator, false)} per ${ratioPart(m.denominator, true)}`;
  return m.name;
}

/** A metric's title by name, from the experiment's definitions (the name when it has none). */
export function titleOf(metrics: readonly NamedMetric[], name: string): string {
  const m = metrics.find((d) => d.name === name);
  return m ? metricTitle(m) : name;
}
