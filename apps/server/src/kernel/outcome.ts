/**
 * An expected failure below the HTTP edge: a code from its layer's closed set, the sentence a
 * caller reads, and the facts that go with it. Layers throw their own subclass; `http/` maps
 * each code to its problem type, so no layer below the routes knows about HTTP.
 */
export class Outcome<Code extends string = string> extends Error {
  constructor(
    readonly code: Code,
    readonly detail: string,
    /** Members added to the answer beside `detail` (`errors`, `plan_required`, ...). */
    readonly extra: Record<string, unknown> = {},
    /** When the same request can succeed again, in whole seconds from now. */
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(detail);
  }
}
