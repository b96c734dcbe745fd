import { Type } from 'typebox';
import type { App } from '../../http/app-types.ts';
import type { ReadinessProbe } from '../../http/readiness.ts';

const CheckSchema = Type.Object({
  ok: Type.Boolean(),
  detail: Type.String(),
  lag_seconds: Type.Optional(Type.Integer()),
  max_lag_seconds: Type.Optional(Type.Integer()),
});

const ReadinessSchema = Type.Object({
  status: Type.Union([Type.Literal('ready'), Type.Literal('not_ready')]),
  failed: Type.Array(Type.String()),
  checks: Type.Record(Type.String(), CheckSchema),
});

/** Readiness: 200 when every check passes, else 503 naming each failed check. No credential. */
export function register(app: App, probe: ReadinessProbe): void {
  app.get(
    '/readyz',
    { schema: { hide: true, response: { 200: ReadinessSchema, 503: ReadinessSchema } } },
    async (_request, reply) => {
      const report = await probe.report();
      reply.header('cache-control', 'no-store');
      reply.status(report.status === 'ready' ? 200 : 503);
      return report;
    },
  );
}
