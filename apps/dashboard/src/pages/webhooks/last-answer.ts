import type { Delivery } from './queries.ts';

/** The last answer in words: the status code, or the error when the receiver gave none. */
export function lastAnswer(d: Delivery): string {
  if (d.attempts === 0) return 'not attempted yet';
  const code = d.last_response_status === null ? 'no answer' : `HTTP ${d.last_response_status}`;
  return d.last_error === null ? code : `${code}: ${d.last_error}`;
}
