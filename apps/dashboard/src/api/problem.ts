/** An RFC 9457 problem as the server sends it; every failed request becomes one. */
export class ProblemError extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    readonly detail: string | undefined,
    readonly type: string,
    readonly body: Record<string, unknown> = {},
  ) {
    super(detail ? `${title}: ${detail}` : title);
  }
}

export function toProblem(status: number, body: unknown): ProblemError {
  if (body && typeof body === 'object' && 'title' in body) {
    const b = body as Record<string, unknown>;
    return new ProblemError(
      status,
      String(b.title),
      typeof b.detail === 'string' ? b.detail : undefined,
      typeof b.type === 'string' ? b.type : 'about:blank',
      b,
    );
  }
  return new ProblemError(status, `Request failed (${status})`, undefined, 'about:blank');
}

export const isProblem = (e: unknown, type?: string): e is ProblemError =>
  e instanceof ProblemError && (type === undefined || e.type === type);
