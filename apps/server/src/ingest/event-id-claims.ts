import { type AcceptedEvent, EventSchema } from './event-schema.ts';

/** JSON with object keys sorted, so two spellings of one metadata object compare equal. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const keys = Object.keys(value).sort();
    return `{${keys
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * The fields an accepted event may carry, in the order `canonical` sorts an object's keys, each
 * with its key as canonical JSON writes it (`"key":`).
 */
const FIELDS: ReadonlyArray<readonly [string, string]> = [
  ...new Set([
    ...Object.keys(EventSchema.properties),
    'variant',
    'received_at',
    'is_test',
    'priced_by',
    'text_key',
    'prompt_bytes',
    'response_bytes',
    'text_sha256',
  ]),
]
  .sort()
  .map((k) => [k, `${JSON.stringify(k)}:`] as const);
const KNOWN = new Set(FIELDS.map(([k]) => k));

/** `contentOf` as first written: a copy of the event without its receipt, canonical whole. */
function contentByCopy(event: AcceptedEvent): string {
  const { received_at: _received, ...content } = event;
  if (content.priced_by !== undefined) {
    delete content.priced_by;
    delete content.cost_usd;
  }
  return canonical(content);
}

/**
 * What an event says, without when it was received (slices of an import differ in that), as
 * canonical JSON. The known fields are written in their sorted order with no copy of the event
 * and no sort per event, only a free-form value (`metadata`) walked by `canonical`: the same
 * text `canonical` makes of the whole (a stored claim's digest depends on it, so it must stay
 * the same). An event holding a field not listed takes the general walk.
 */
export function contentOf(event: AcceptedEvent): string {
  const fields = event as unknown as Record<string, unknown>;
  for (const key in fields) {
    if (!KNOWN.has(key) && fields[key] !== undefined) return contentByCopy(event);
  }
  // A cost the server priced is not something the event said: a retry priced again after a
  // price change is the same event (as the stored comparison in conflict-sql.ts holds too).
  const priced = event.priced_by !== undefined;
  let out = '{';
  for (const [key, prefix] of FIELDS) {
    const value = fields[key];
    if (value === undefined || key === 'received_at') continue;
    if (priced && (key === 'priced_by' || key === 'cost_usd')) continue;
    if (out.length > 1) out += ',';
    out += prefix;
    out += typeof value === 'object' && value !== null ? canonical(value) : JSON.stringify(value);
  }
  return `${out}}`;
}

/**
 * The event ids one request (a batch, or a whole import across its slices) has used. A second
 * event with an id already used is fine when it says the same thing (a repeat: acknowledged,
 * stored once) and refused when it says something else, instead of one of the two vanishing.
 * Events are compared after checking, so the id or name of the experiment, a timestamp's
 * spelling and the order of metadata keys do not make a difference.
 */
export class EventIdClaims {
  private readonly first = new Map<string, { ref: string; event: AcceptedEvent }>();

  /** Null when the event may go on; otherwise the reference of the earlier event it contradicts. */
  claim(event: AcceptedEvent, ref: string): string | null {
    const earlier = this.first.get(event.event_id);
    if (earlier === undefined) {
      this.first.set(event.event_id, { ref, event });
      return null;
    }
    return contentOf(earlier.event) === contentOf(event) ? null : earlier.ref;
  }
}
