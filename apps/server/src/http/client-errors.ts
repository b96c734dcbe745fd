import { maxHeaderSize, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { PROBLEM_MEDIA_TYPE, problemBody } from './problem-body.ts';
import type { ProblemSlug } from './problems.ts';

/** Node's parser errors carry the bytes it was parsing (typed loosely by Fastify). */
type ParserError = Error & { code?: string; rawPacket?: unknown };

/** The request target when the bytes read start with the request line, and whether that line alone overflows. */
function requestLine(error: ParserError): { target: string | null; overflows: boolean } {
  const raw = Buffer.isBuffer(error.rawPacket) ? error.rawPacket.toString('latin1') : '';
  const end = raw.indexOf('\r\n');
  const line = end === -1 ? raw : raw.slice(0, end);
  const target = /^[A-Z]+ (\/\S*)/.exec(line)?.[1] ?? null;
  return { target, overflows: target !== null && (end === -1 || line.length >= maxHeaderSize) };
}

function classify(error: ParserError): { slug: ProblemSlug; detail: string } {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return { slug: 'request-timeout', detail: 'The request was not received completely in time' };
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    // Node counts the request line against the header limit: a line that overflows alone is the URI.
    return requestLine(error).overflows
      ? { slug: 'uri-too-long', detail: 'The request target exceeds 16 KiB' }
      : { slug: 'header-fields-too-large', detail: 'The request headers exceed 16 KiB' };
  }
  return {
    slug: 'bad-request',
    detail: `The request line or a header is malformed (${error.code ?? 'parse error'})`,
  };
}

/**
 * Answers what Node's HTTP parser refuses before Fastify sees a request (malformed request
 * line or header, headers too large, a stalled request) as a problem, like every other error.
 * The connection is closed afterwards: the parser cannot find the next request on it.
 */
export function problemClientErrorHandler(error: ParserError, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const { slug, detail } = classify(error);
  const target = requestLine(error).target;
  // The instance is the path when it was read and is short enough to echo; never the query.
  const path = target?.split('?')[0];
  const instance = path !== undefined && path.length <= 2048 ? path : '/';
  const problem = problemBody(slug, detail, instance);
  const body = JSON.stringify(problem);
  const status = problem.status;
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: ${PROBLEM_MEDIA_TYPE}; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
