import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { guardedLookup, ipLiteralOf, isPublicAddress, type Resolver } from './address-policy.ts';

/** Each attempt is cut off after this long. */
export const ATTEMPT_TIMEOUT_MS = 10_000;

/** Of the receiver's answer, this much is kept in the attempt log. */
export const RESPONSE_KEPT_BYTES = 1024;

export type Outcome = {
  status: number | null;
  error: string | null;
  /** The first RESPONSE_KEPT_BYTES of the answer (UTF-8), or null when there was none. */
  body?: string | null;
};

/** Reads the answer up to RESPONSE_KEPT_BYTES, then stops listening: a slow tail is not awaited. */
function firstBytes(res: NodeJS.ReadableStream, done: (body: string) => void) {
  const chunks: Buffer[] = [];
  let size = 0;
  let settled = false;
  const finish = () => {
    if (settled) return;
    settled = true;
    done(Buffer.concat(chunks).subarray(0, RESPONSE_KEPT_BYTES).toString('utf8'));
  };
  res.on('data', (chunk: Buffer) => {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= RESPONSE_KEPT_BYTES) finish();
  });
  res.on('end', finish);
  res.on('error', finish);
}

/**
 * One POST of an event: the response status and the first 1 KiB of its body, or the reason
 * there is none. Redirects are not followed. Unless the deployment allows private
 * addresses, an IP literal must be public and a name must resolve to public addresses only,
 * checked at connection time.
 */
export function postEvent(
  url: string,
  headers: Record<string, string>,
  body: string,
  route: { allowPrivate: boolean; resolve?: Resolver },
): Promise<Outcome> {
  const target = new URL(url);
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  const literal = ipLiteralOf(target.hostname);
  // Node connects to an IP literal without a lookup, so the literal is judged here.
  if (!route.allowPrivate && literal !== null && !isPublicAddress(literal))
    return Promise.resolve({ status: null, error: `${literal} is not a public address` });
  const lookup = route.allowPrivate ? undefined : guardedLookup(route.resolve);
  return new Promise((settle) => {
    const req = send(
      target,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': Buffer.byteLength(body).toString() },
        ...(lookup ? { lookup } : {}),
      },
      (res) => {
        firstBytes(res, (kept) => {
          clearTimeout(timer);
          res.resume();
          settle({ status: res.statusCode ?? null, error: null, body: kept });
        });
      },
    );
    const timer = setTimeout(
      () => req.destroy(new Error(`no answer within ${ATTEMPT_TIMEOUT_MS} ms`)),
      ATTEMPT_TIMEOUT_MS,
    );
    req.on('error', (err) => {
      clearTimeout(timer);
      settle({ status: null, error: err.message });
    });
    req.end(body);
  });
}
