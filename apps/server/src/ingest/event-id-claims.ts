import type { AcceptedEvent } from './event-schema.ts';

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

/** What an event says, without when it was received (slices of an import differ in that). */
export function contentOf(event: AcceptedEvent): string {
  const { received_at: _received, ...content } = event;
  // A cost the server priced is not something the event said: a retry priced again after a
  // price change is the same event (as the stored comparison in conflict-sql.ts holds too).
  if (content.priced_by !== undefined) {
    delete content.priced_by;
    delete content.cost_usd;
  }
  return canonical(content);
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
