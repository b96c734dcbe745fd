import { costOf, type PriceBook, type TokenCounts } from './price-book.ts';

/** What pricing reads of a model call and what it may add. */
export interface PriceableCall extends TokenCounts {
  type: string;
  timestamp: string;
  model?: string | undefined;
  cost_usd?: number | undefined;
  priced_by?: string | undefined;
}

/**
 * Whether the server prices this call: a model call that names its model and counts tokens but
 * sent no cost. A cost the caller sent is kept as sent.
 */
export function needsPrice(call: PriceableCall): boolean {
  return (
    call.type === 'model_call' &&
    call.cost_usd === undefined &&
    call.model !== undefined &&
    (call.input_tokens !== undefined || call.output_tokens !== undefined)
  );
}

/**
 * The calls with their cost from the row in effect at each call's timestamp, and the row's name
 * in `priced_by`. A call no row prices is returned as it came: it keeps no cost.
 */
export function priceCalls<T extends PriceableCall>(book: PriceBook, calls: readonly T[]): T[] {
  return calls.map((call) => {
    if (!needsPrice(call)) return call;
    const row = book.rowFor(call.model as string, Date.parse(call.timestamp));
    if (row === null) return call;
    return { ...call, cost_usd: costOf(row, call), priced_by: row.ref };
  });
}
