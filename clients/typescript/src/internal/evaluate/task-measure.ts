import type { FinishModelCall } from '../model-call.ts';
import type { CallMeasure } from '../model-call-measure.ts';

/** The measurements of one result as the results route takes them. */
export interface ResultMeasurements {
  latency_ms: number;
  input_tokens?: number;
  output_tokens?: number;
  cost?: number;
  model?: string;
}

interface CallSlot {
  measure: CallMeasure | null;
  latencyMs: number;
}

/**
 * The model calls one evaluation task makes through wrapped clients (or the framework
 * integrations), gathered for its result instead of being sent as online events. Calls take a
 * slot when they start, so "the first call's model" is the first to start, whichever ends first.
 */
export class TaskMeasure {
  private readonly calls: CallSlot[] = [];

  constructor(readonly variant: string) {}

  /** A call starts; the returned function ends it (once; ModelCall guarantees that). */
  begin(): FinishModelCall {
    const slot: CallSlot = { measure: null, latencyMs: 0 };
    this.calls.push(slot);
    return (measure, latencyMs) => {
      slot.measure = { ...measure };
      slot.latencyMs = latencyMs;
    };
  }

  /**
   * Sums over the calls that ended: latency, tokens, cost (each absent when no call reported
   * it), and the first call's model. With no call ended the latency is the task's own time.
   */
  measurements(taskMs: number): ResultMeasurements {
    const ended = this.calls.filter((c) => c.measure !== null) as Array<{
      measure: CallMeasure;
      latencyMs: number;
    }>;
    if (ended.length === 0) return { latency_ms: taskMs };
    const out: ResultMeasurements = {
      latency_ms: roundMicros(ended.reduce((sum, c) => sum + c.latencyMs, 0)),
    };
    const input = sumOf(ended, (m) => m.input_tokens);
    const output = sumOf(ended, (m) => m.output_tokens);
    const cost = sumOf(ended, (m) => m.cost_usd);
    // The results route takes whole token counts; providers report them so.
    if (input !== undefined) out.input_tokens = Math.round(input);
    if (output !== undefined) out.output_tokens = Math.round(output);
    if (cost !== undefined) out.cost = cost;
    const model = ended.find((c) => c.measure.model !== undefined)?.measure.model;
    if (model !== undefined) out.model = model;
    return out;
  }
}

function sumOf(
  calls: ReadonlyArray<{ measure: CallMeasure }>,
  pick: (m: CallMeasure) => number | undefined,
): number | undefined {
  let sum: number | undefined;
  for (const { measure } of calls) {
    const value = pick(measure);
    if (typeof value === 'number' && Number.isFinite(value)) sum = (sum ?? 0) + value;
  }
  return sum;
}

export function roundMicros(ms: number): number {
  return Math.max(0, Math.round(ms * 1_000) / 1_000);
}
