import { type FastifyReply, type FastifyRequest, LogController } from 'fastify';

/** The probes a load balancer or Prometheus polls every few seconds: never logged. */
const PROBE_ROUTES = new Set(['/healthz', '/readyz', '/metrics']);

/** The request line's own fields (the readable format leaves them out: the message says them). */
export const REQUEST_LINE_FIELDS = ['method', 'path', 'statusCode', 'responseTime'] as const;

/**
 * Fastify's request logging, one line per request: nothing when a request arrives (Fastify
 * writes "incoming request" there), and `GET /v1/x 200 3.1 ms` at `info` once the answer has
 * gone out (where it writes "request completed"), at `error` with the error when the answer
 * failed. The path goes without its query string, which could carry a value nobody should find
 * in a log; no header is logged. Probes are left out. Fastify's other lines are its own.
 */
export class OneLineRequestLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    const path = request.url.split('?', 1)[0] ?? '';
    if (PROBE_ROUTES.has(request.routeOptions.url ?? path)) return;
    const responseTime = Math.round(reply.elapsedTime * 10) / 10;
    const line = { method: request.method, path, statusCode: reply.statusCode, responseTime };
    const message = `${request.method} ${path} ${reply.statusCode} ${responseTime} ms`;
    if (error) request.log.error({ ...line, err: error }, message);
    else request.log.info(line, message);
  }
}
