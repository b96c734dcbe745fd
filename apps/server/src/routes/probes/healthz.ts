import { Type } from 'typebox';
import type { App } from '../../http/app-types.ts';

/** Liveness: the process answers. No credential, no database call. */
export function register(app: App): void {
  app.get(
    '/healthz',
    {
      schema: {
        hide: true,
        response: { 200: Type.Object({ status: Type.Literal('ok') }) },
      },
    },
    async (_request, reply) => {
      reply.header('cache-control', 'no-store');
      return { status: 'ok' as const };
    },
  );
}
