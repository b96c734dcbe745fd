import { createHash } from 'node:crypto';
import { TimeSlice } from '../../kernel/time-slice.ts';
import { type AcceptDeps, type AcceptOutcome, acceptEvents, type Rejection } from '../accept.ts';
import { EventIdClaims } from '../event-id-claims.ts';
import { refuseIfAllOverAllowance } from '../refusal.ts';
import type { OtlpSpan, PartialSuccess } from './decode.ts';
import { ROW_TEXT_LIMIT, type SpanVerdict, verdictOf } from './genai-span.ts';

type ModelCall = Extract<SpanVerdict, { kind: 'model_call' }>;

/**
 * Events accepted per step, each appended to the event log before the next is checked: a
 * step's write is built in one go, and 1,000 keeps that short, as for imports
 * (ingest/import-rows.ts).
 */
const ACCEPT_STEP = 1000;

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
 * span Arbiter cannot attribute or store is rejected with its reason. `slice` is the request's
 * time slice: the loop is handed back between spans and between events when it is used up.
 */
export async function acceptOtlpTraces(
  ctx: AcceptDeps,
  orgId: string,
  spans: readonly OtlpSpan[],
  slice: TimeSlice = new TimeSlice(),
): Promise<PartialSuccess> {
  const reasons: Array<{ span: number; reason: string }> = [];
  const calls: Array<{ span: number; call: ModelCall }> = [];
  const textLimit = ctx.modelText === null ? ROW_TEXT_LIMIT : Number.POSITIVE_INFINITY;
  for (const [span, s] of spans.entries()) {
    if (slice.due) await slice.pause();
    const verdict = verdictOf(s, textLimit);
    if (verdict.kind === 'rejected') reasons.push({ span, reason: verdict.reason });
    else if (verdict.kind === 'model_call') calls.push({ span, call: verdict });
  }
  if (calls.length === 0) return partialOf(spans, reasons);
  const state = await ctx.orgState.get(orgId);
  const canonical = (experiment: string) => state.lookup.get(experiment)?.id ?? experiment;
  const { raw, owner, isCall } = eventsOf(calls, canonical);
  const refOf = (i: number) => spanName(spans[owner[i] as number] as OtlpSpan);
  for (const r of await acceptInSteps(ctx, orgId, raw, refOf, slice)) {
    // A span is rejected when its model call is; its exposure shares the call's checks.
    if (isCall[r.index]) reasons.push({ span: owner[r.index] as number, reason: r.detail });
  }
  return partialOf(spans, reasons);
}

/**
 * Accepts the events ACCEPT_STEP at a time, one set of claimed ids across the steps; the
 * rejections, indexed into `raw`. An export whose every event was refused for the allowance
 * alone is refused whole (429).
 */
async function acceptInSteps(
  ctx: AcceptDeps,
  orgId: string,
  raw: readonly unknown[],
  refOf: (index: number) => string,
  slice: TimeSlice,
): Promise<Rejection[]> {
  const ids = new EventIdClaims();
  const rejected: Rejection[] = [];
  let accepted = 0;
  let overAllowance = 0;
  let last: AcceptOutcome | null = null;
  for (let from = 0; from < raw.length; from += ACCEPT_STEP) {
    last = await acceptEvents(ctx, orgId, raw.slice(from, from + ACCEPT_STEP), {
      refOf: (i) => refOf(from + i),
      ids,
      slice,
    });
    accepted += last.accepted;
    overAllowance += last.overAllowance;
    for (const r of last.rejected) rejected.push({ index: from + r.index, detail: r.detail });
  }
  if (last !== null) refuseIfAllOverAllowance({ ...last, accepted, overAllowance });
  return rejected;
}
