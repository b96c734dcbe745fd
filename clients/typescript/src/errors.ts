/**
 * The one error the client throws into the caller: `new Arbiter()` could not start (no API key,
 * or no `fetch` in the runtime), or `evaluate`, an explicit call, could not run or finish.
 * Everything else logs instead of throwing.
 */
export class ArbiterError extends Error {
  override readonly name = 'ArbiterError';
}
