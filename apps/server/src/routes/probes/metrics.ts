import { createHash, timingSafeEqual } from 'node:crypto';
import type { App } from '../../http/app-types.ts';
import { ProblemError } from '../../http/problems.ts';
import type { Metrics } from '../../kernel/ports.ts';

const digest = (value: string) => createHash('sha256').update(value).digest();

/** Refuses a scrape without `Authorization: Bearer <ARBITER_METRICS_TOKEN>` (when one is set). */
function checkToken(header: string | undefined, token: string | null): void {
  if (token === null) return;
  const sent = /^Bearer (\S+)$/i.exec(header ?? '')?.[1];
  if (sent === undefined)
    throw new ProblemError(
      'missing-credential',
      'Send the scrape token as `Authorization: Bearer <ARBITER_METRICS_TOKEN>`',
    );
  if (!timingSafeEqual(digest(sent), digest(token)))
    throw new ProblemError('invalid-credential', 'The scrape token is not ARBITER_METRICS_TOKEN');
}

/** Prometheus' scrape: the text exposition format, only when ARBITER_METRICS is on (on the main or the metrics listener). */
export function register(app: App, metrics: Metrics, token: string | null): void {
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    checkToken(request.headers.authorization, token);
    const { contentType, text } = await metrics.scrape();
    reply.header('cache-control', 'no-store');
    reply.type(contentType);
    return text;
  });
}
