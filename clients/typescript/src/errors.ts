/**
 * The one error the client throws into the caller: `new Arbiter()` could not start (no API key,
 * or no `fetch` in the runtime). Everything after construction logs instead of throwing.
 */
export class ArbiterError extends Error {
  override readonly name = 'ArbiterError';
}
