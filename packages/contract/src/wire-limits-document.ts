import {
  BUSINESS_FIELDS,
  CLIENT_SET_FIELDS,
  EVENT_FIELDS,
  EVENT_TYPES,
  MODEL_CALL_FIELDS,
} from './event-fields.ts';
import {
  EVENT_TEXT_LIMITS,
  FREE_FORM_JSON_MAX_BYTES,
  FREE_FORM_JSON_MAX_DEPTH,
  MAX_EVENTS_BODY_BYTES,
  MAX_EVENTS_PER_BATCH,
  MAX_FUTURE_SKEW_MS,
  MAX_HISTORY_AGE_MS,
  MAX_LIVE_AGE_MS,
  NUMERIC_DOMAINS,
  OFFLINE_SCORE_DOMAIN,
  STORABLE_TEXT_PATTERN,
} from './wire-limits.ts';

/**
 * The wire limits as the document testdata/wire-limits.json holds, for the clients written in
 * other languages; a test regenerates the file from this function and fails on a difference.
 */
export function wireLimitsDocument() {
  return {
    specVersion: 1,
    description:
      'The limits of what crosses the wire, generated from packages/contract (do not edit: run `npm run write-wire-limits -w @arbiter/contract`). The server refuses anything beyond them; every client library checks them before it queues an event and its tests assert against this file. Text lengths count UTF-16 code units; free-form JSON bytes are of compact JSON in UTF-8; durations are in milliseconds. `event.fields` are every field an event may carry; `modelCallOnly` and `businessOnly` only those types carry (a business event always); `clientSet` the client fills in itself; `offlineResult.scores` bounds each custom score an offline result carries.',
    textRule: {
      pattern: STORABLE_TEXT_PATTERN,
      meaning: 'no NUL and no unpaired UTF-16 surrogate, in every string, id and free-form key',
    },
    event: {
      types: EVENT_TYPES,
      fields: EVENT_FIELDS,
      modelCallOnly: MODEL_CALL_FIELDS,
      businessOnly: BUSINESS_FIELDS,
      clientSet: CLIENT_SET_FIELDS,
      text: EVENT_TEXT_LIMITS,
      numbers: NUMERIC_DOMAINS,
    },
    offlineResult: { scores: OFFLINE_SCORE_DOMAIN },
    freeFormJson: { maxDepth: FREE_FORM_JSON_MAX_DEPTH, maxBytes: FREE_FORM_JSON_MAX_BYTES },
    batch: { maxEvents: MAX_EVENTS_PER_BATCH, maxBytes: MAX_EVENTS_BODY_BYTES },
    timestamps: {
      maxFutureSkewMs: MAX_FUTURE_SKEW_MS,
      maxLiveAgeMs: MAX_LIVE_AGE_MS,
      maxHistoryAgeMs: MAX_HISTORY_AGE_MS,
    },
  };
}

/** The file's exact text: two-space JSON and a final newline, as Biome formats it. */
export function wireLimitsText(): string {
  return `${JSON.stringify(wireLimitsDocument(), null, 2)}\n`;
}
