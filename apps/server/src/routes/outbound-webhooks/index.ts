import type { Context } from '../../context.ts';
import type { Plane } from '../../http/app-types.ts';
import { registerRoutes } from '../../http/register-routes.ts';
import { requireRole, type SessionDeps, useSession } from '../../http/session-auth.ts';
import * as createEndpoint from './create-endpoint.ts';
import * as deleteEndpoint from './delete-endpoint.ts';
import * as getEndpoint from './get-endpoint.ts';
import * as listDeliveries from './list-deliveries.ts';
import * as listEndpoints from './list-endpoints.ts';
import * as retryDelivery from './retry-delivery.ts';
import * as rotateSecret from './rotate-secret.ts';
import * as sendTest from './send-test.ts';
import * as updateEndpoint from './update-endpoint.ts';

/** What the outbound webhooks plane's hooks and routes use. */
export type OutboundWebhookDeps = SessionDeps &
  Pick<Context, 'db' | 'clock' | 'config' | 'secretBox'>;

/**
 * The outbound webhooks plane: the org's webhook endpoints, behind a dashboard session of an
 * admin or owner (a member is refused: an endpoint receives the org's events).
 */
export const outboundWebhookRoutes: Plane<OutboundWebhookDeps> = async (app, { ctx }) => {
  useSession(app, ctx);
  app.addHook('preHandler', requireRole('admin'));
  registerRoutes(app, ctx, [
    listEndpoints,
    createEndpoint,
    getEndpoint,
    updateEndpoint,
    deleteEndpoint,
    rotateSecret,
    sendTest,
    listDeliveries,
    retryDelivery,
  ]);
};
