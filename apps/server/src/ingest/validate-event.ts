import { variantForBucket } from '@arbiter/bucketing';
import {
  BUSINESS_FIELDS,
  MAX_FUTURE_SKEW_MS,
  MAX_HISTORY_AGE_MS,
  MAX_LIVE_AGE_MS,
  MODEL_CALL_FIELDS,
} from '@arbiter/contract';
import type { OrgState } from '../domain/org-state-cache.ts';
import { utcDay } from '../kernel/utc-day.ts';
import { compileBodyValidator } from '../schemas/validators.ts';
import {
  type AcceptedEvent,
  EventSchema,
  EventSchemaTextInStore,
  type IncomingEvent,
} from './event-schema.ts';

const checkRowShape = compileBodyValidator(EventSchema);
const checkStoreShape = compileBodyValidator(EventSchemaTextInStore);

export type EventCheck =
  | {
      ok: true;
      event: AcceptedEvent;
      /** Dated before the experiment's analysis window (only history may be). */
      beforeWindow: boolean;
    }
  | { ok: false; detail: string };

/** `metadata.arbiter_test` marks test events (docs/decisions/ingest.md#test-events). */
export function isTestEvent(metadata: Record<string, unknown> | undefined): boolean {
  return metadata?.arbiter_test === true;
}

/** Already in the form `toISOString` gives: kept as sent. */
const UTC_TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/**
 * `live`: POST /v1/events, events as they happen or replayed by a client within its 24 h
 * window, and never before the experiment's analysis window. `history`: imports and signed
 * business events, which may carry a year of history, days before the experiment included.
 */
export type TimestampRule = 'live' | 'history';

/** The shape check's first failure, as "<field>: <what is wrong>". */
function shapeProblem(checkShape: typeof checkRowShape): string {
  const issue = checkShape.errors?.[0];
  const path =
    issue?.keyword === 'required'
      ? `${issue.instancePath}/${String(issue.params.missingProperty)}`
      : (issue?.instancePath ?? '');
  const detail =
    issue?.keyword === 'required'
      ? 'is required'
      : issue?.keyword === 'additionalProperties'
        ? `${String(issue.params.additionalProperty)} is not a known field`
        : (issue?.message ?? 'is not valid');
  return `${path.replace(/^\//, '') || 'event'}: ${detail}`;
}

/** Business fields only on business events (and always there), model-call fields only on model calls. */
function typeFieldsProblem(e: IncomingEvent): string | null {
  if (e.type === 'business_event') {
    for (const f of BUSINESS_FIELDS)
      if (e[f] === undefined) return `${f}: is required for business_event`;
  } else {
    for (const f of BUSINESS_FIELDS)
      if (e[f] !== undefined) return `${f}: only business_event carries it`;
  }
  if (e.type !== 'model_call') {
    for (const f of MODEL_CALL_FIELDS)
      if (e[f] !== undefined) return `${f}: only model_call carries it`;
  }
  return tokenPartsProblem(e);
}

/** A token part is counted inside its whole, so it needs the whole and cannot exceed it. */
function tokenPartsProblem(e: IncomingEvent): string | null {
  const parts = [
    ['cached_input_tokens', e.cached_input_tokens, 'input_tokens', e.input_tokens],
    ['reasoning_tokens', e.reasoning_tokens, 'output_tokens', e.output_tokens],
  ] as const;
  for (const [part, count, whole, total] of parts) {
    if (count === undefined) continue;
    if (total === undefined) return `${part}: is a part of ${whole}, which is missing`;
    if (count > total) return `${part}: ${count} exceeds ${whole} (${total}), which counts it`;
  }
  return null;
}

// field by field: every accepted event has one shape, which the hot path reads fastest
function acceptedEvent(
  e: IncomingEvent,
  experimentId: string,
  variant: string | null,
  occurred: number,
  receivedAtText: string,
): AcceptedEvent {
  return {
    event_id: e.event_id,
    type: e.type,
    experiment_id: experimentId,
    user_id: e.user_id,
    variant,
    timestamp: UTC_TIMESTAMP.test(e.timestamp) ? e.timestamp : new Date(occurred).toISOString(),
    received_at: receivedAtText,
    latency_ms: e.latency_ms,
    input_tokens: e.input_tokens,
    output_tokens: e.output_tokens,
    cached_input_tokens: e.cached_input_tokens,
    reasoning_tokens: e.reasoning_tokens,
    cost_usd: e.cost_usd,
    model: e.model,
    error: e.error,
    prompt: e.prompt,
    response: e.response,
    business_metric: e.business_metric,
    value: e.value,
    metadata: e.metadata,
    is_test: isTestEvent(e.metadata),
  };
}

/**
 * Checks one event against the org's config; the variant is computed when the event has none.
 * `receivedAtText` is `receivedAt` as ISO text, computed once per batch by the caller.
 */
export function checkEvent(
  raw: unknown,
  state: OrgState,
  receivedAt: Date,
  receivedAtText: string = receivedAt.toISOString(),
  rule: TimestampRule = 'live',
  textInStore = false,
): EventCheck {
  // Text kept in the row has the contract's cap; text in an object store only the body limit.
  const checkShape = textInStore ? checkStoreShape : checkRowShape;
  if (!checkShape(raw)) return { ok: false, detail: shapeProblem(checkShape) };
  const e = raw as IncomingEvent;
  const experiment = state.lookup.get(e.experiment_id);
  if (!experiment)
    return { ok: false, detail: `experiment_id: no experiment "${e.experiment_id}" in this org` };
  const occurred = Date.parse(e.timestamp);
  if (Number.isNaN(occurred)) return { ok: false, detail: 'timestamp: is not a valid instant' };
  if (occurred - receivedAt.getTime() > MAX_FUTURE_SKEW_MS) {
    return { ok: false, detail: 'timestamp: more than 24 hours in the future' };
  }
  if (receivedAt.getTime() - occurred > (rule === 'live' ? MAX_LIVE_AGE_MS : MAX_HISTORY_AGE_MS)) {
    return {
      ok: false,
      detail:
        rule === 'live'
          ? 'timestamp: more than 25 hours old (clients replay within 24 h); send older history through POST /v1/events/import'
          : 'timestamp: more than 366 days old',
    };
  }
  const beforeWindow = occurred < experiment.windowStartMs;
  if (rule === 'live' && beforeWindow) {
    const day = utcDay(new Date(experiment.windowStartMs));
    return {
      ok: false,
      detail: `timestamp: before ${day}, the UTC day ${experiment.name} was created, where its analysis window starts; send history through POST /v1/events/import`,
    };
  }
  const fields = typeFieldsProblem(e);
  if (fields !== null) return { ok: false, detail: fields };
  let variant = e.variant ?? null;
  if (variant !== null && !experiment.variantKeys.has(variant)) {
    return { ok: false, detail: `variant: "${variant}" is not a variant of ${experiment.name}` };
  }
  if (variant === null) {
    variant = variantForBucket(experiment.ranges, experiment.bucketOf(e.user_id));
  }
  return {
    ok: true,
    beforeWindow,
    event: acceptedEvent(e, experiment.id, variant, occurred, receivedAtText),
  };
}
