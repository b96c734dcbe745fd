/**
 * A command used wrongly (an unknown command or option, a missing or invalid value): said in
 * one line on stderr, prefixed with the command, and exit 2. Run-time failures exit 1.
 */
export class UsageError extends Error {
  constructor(
    /** The command as typed, e.g. `pipeline run`; empty for `arbiter` itself. */
    readonly command: string,
    message: string,
  ) {
    super(message);
  }
}
