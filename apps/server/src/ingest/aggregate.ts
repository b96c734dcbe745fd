import type { AcceptedEvent } from './event-schema.ts';

/** Measures kept per user per day; business metrics are `biz:<business_metric>`. */
export const MEASURES = {
  exposure: 'exposure',
  modelCall: 'model_call',
  latency: 'latency_ms',
  tokens: 'tokens',
  cost: 'cost_usd',
} as const;

export function businessMeasure(metric: string): string {
  return `biz:${metric}`;
}

export interface AggregateRow {
  experimentId: string;
  day: string;
  userId: string;
  measure: string;
  variant: string;
  n: number;
  sum: number;
  sumSquares: number;
}

/**
 * Folds events into per-user daily rows. Summed within a batch first, because one upsert may
 * not touch the same row twice. Events of users outside every variant are stored but not
 * aggregated: they belong to no arm.
 */
export function aggregate(events: readonly AcceptedEvent[]): AggregateRow[] {
  const rows = new Map<string, AggregateRow>();
  const add = (e: AcceptedEvent, measure: string, value: number) => {
    const day = e.timestamp.slice(0, 10);
    const key = `${e.experiment_id}\u0000${day}\u0000${e.user_id}\u0000${measure}\u0000${e.variant}`;
    let row = rows.get(key);
    if (!row) {
      row = {
        experimentId: e.experiment_id,
        day,
        userId: e.user_id,
        measure,
        variant: e.variant as string,
        n: 0,
        sum: 0,
        sumSquares: 0,
      };
      rows.set(key, row);
    }
    row.n += 1;
    row.sum += value;
    row.sumSquares += value * value;
  };
  for (const e of events) {
    if (e.variant === null) continue;
    switch (e.type) {
      case 'exposure':
        add(e, MEASURES.exposure, 1);
        break;
      case 'model_call': {
        // sum of model_call = calls that failed, so error rate is sum / n
        add(e, MEASURES.modelCall, e.error ? 1 : 0);
        if (e.latency_ms !== undefined) add(e, MEASURES.latency, e.latency_ms);
        if (e.input_tokens !== undefined || e.output_tokens !== undefined) {
          add(e, MEASURES.tokens, (e.input_tokens ?? 0) + (e.output_tokens ?? 0));
        }
        if (e.cost_usd !== undefined) add(e, MEASURES.cost, e.cost_usd);
        break;
      }
      case 'business_event':
        add(e, businessMeasure(e.business_metric as string), e.value as number);
        break;
    }
  }
  return [...rows.values()];
}
