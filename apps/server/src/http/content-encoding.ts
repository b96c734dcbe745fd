import type { FastifyRequest } from 'fastify';
import { ProblemError } from './problems.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Content codings the route decodes itself (OTLP's gzip); every other route takes none. */
    contentEncodings?: readonly string[];
  }
}

function hasBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return (
    request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0')
  );
}

/**
 * Bodies are read as sent. Without this a gzip body reached the JSON parser and came back as
 * "malformed JSON"; RFC 9110 §15.5.16 answers a content coding the server does not apply with 415.
 */
export async function refuseContentEncoding(request: FastifyRequest): Promise<void> {
  const header = request.headers['content-encoding'];
  if (header === undefined || request.is404 || !hasBody(request)) return;
  const codings = header
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
  if (codings.length === 0) return;
  const decoded = request.routeOptions.config?.contentEncodings ?? [];
  if (codings.length === 1 && decoded.includes(codings[0] as string)) return;
  const or = decoded.map((c) => ` or as ${c}`).join('');
  throw new ProblemError(
    'unsupported-content-encoding',
    `Content-Encoding ${codings.join(', ')} is not accepted; send the body uncompressed${or}`,
    {},
    { 'accept-encoding': [...decoded, 'identity'].join(', ') },
  );
}
