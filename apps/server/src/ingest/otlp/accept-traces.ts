import { createHash } from 'node:crypto';
import { TimeSlice } from '../../kernel/time-slice.ts';
import { type AcceptDeps, acceptEvents } from '../accept.ts';
import { refuseIfAllOverAllowance } from '../refusal.ts';
import type { OtlpSpan, PartialSuccess } from './decode.ts';
import { ROW_TEXT_LIMIT, type SpanVerdict, verdictOf } from './genai-span.ts';

type ModelCall = Extract<SpanVerdict, { kind: 'model_call' }>;

/** At most this many reasons are spelled out in `error_message`; the count says the rest. */
const REASONS_SHOWN = 5;

/**
 * The one exposure a user gets in an experiment through OTLP: its id depends on nothing else, so
 * every later model call's exposure is a retry the event log stores once, the first standing.
 */
function exposureId(experimentId: string, user: string): string {
  const digest = createHash('sha256').update(`${experimentId}\n${user}`).digest('hex');
  return `otlp-exposure-${digest.slice(0, 40)}`;
}

function spanName(span: OtlpSpan): string {
  return span.spanId === null ? 'a span without an id' : `span ${span.spanId}`;
}

/** Events to accept, and for each the span it came from (exposures ride on a span's call). */
function eventsOf(
  calls: ReadonlyArray<{ span: number; call: ModelCall }>,
  canonical: (experiment: string) => string,
) {
  const raw: unknown[] = [];
  const owner: number[] = [];
  const isCall: boolean[] = [];
  const firstCall = new Map<string, { span: number; call: ModelCall }>();
  for (const entry of calls) {
    const { call } = entry;
    raw.push({
      ...call.fields,
      event_id: call.eventId,
      experiment_id: call.experiment,
      user_id: call.user,
    });
    owner.push(entry.span);
    isCall.push(true);
    const key = `${canonical(call.experiment)}\n${call.user}`;
    const first = firstCall.get(key);
    if (first === undefined || call.startNs < first.call.startNs) firstCall.set(key, entry);
  }
  for (const { span, call } of firstCall.values()) {
    raw.push({
      event_id: exposureId(canonical(call.experiment), call.user),
      type: 'exposure',
      experiment_id: call.experiment,
      user_id: call.user,
      timestamp: call.fields.timestamp,
    });
    owner.push(span);
    isCall.push(false);
  }
  return { raw, owner, isCall };
}

function partialOf(
  spans: readonly OtlpSpan[],
  reasons: ReadonlyArray<{ span: number; reason: string }>,
): PartialSuccess {
  if (reasons.length === 0) return { rejectedSpans: 0, errorMessage: '' };
  const sorted = [...reasons].sort((a, b) => a.span - b.span);
  const shown = sorted
    .slice(0, REASONS_SHOWN)
    .map((r) => `${spanName(spans[r.span] as OtlpSpan)}: ${r.reason}`);
  const more = sorted.length - shown.length;
  const plural = sorted.length === 1 ? 'span' : 'spans';
  return {
    rejectedSpans: sorted.length,
    errorMessage: `${sorted.length} GenAI ${plural} rejected; ${shown.join('; ')}${more > 0 ? `; and ${more} more` : ''}`,
  };
}

/**
 * The OTLP trace export's GenAI model-call spans, accepted through the one ingest path of
 * POST /v1/events (checks, metering, de-duplication by event id): each becomes a `model_call`
 * and a user's first call also an exposure. Other spans are acknowledged and ignored; a GenAI
 * span Arbiter cannot attribute or store is rejected with its reason.
 */
export async function acceptOtlpTraces(
  ctx: AcceptDeps,
  orgId: string,
  spans: readonly OtlpSpan[],
): Promise<PartialSuccess> {
  const reasons: Array<{ span: number; reason: string }> = [];
  const calls: Array<{ span: number; call: ModelCall }> = [];
  const textLimit = ctx.modelText === null ? ROW_TEXT_LIMIT : Number.POSITIVE_INFINITY;
  for (const [span, s] of spans.entries()) {
    const verdict = verdictOf(s, textLimit);
    if (verdict.kind === 'rejected') reasons.push({ span, reason: verdict.reason });
    else if (verdict.kind === 'model_call') calls.push({ span, call: verdict });
  }
  if (calls.length === 0) return partialOf(spans, reasons);
  const state = await ctx.orgState.get(orgId);
  const canonical = (experiment: string) => state.lookup.get(experiment)?.id ?? experiment;
  const { raw, owner, isCall } = eventsOf(calls, canonical);
  const outcome = await acceptEvents(ctx, orgId, raw, {
    refOf: (i) => spanName(spans[owner[i] as number] as OtlpSpan),
    slice: new TimeSlice(),
  });
  refuseIfAllOverAllowance(outcome);
  // A span is rejected when its model call is; its exposure shares the call's checks.
  for (const r of outcome.rejected) {
    if (isCall[r.index]) reasons.push({ span: owner[r.index] as number, reason: r.detail });
  }
  return partialOf(spans, reasons);
}
