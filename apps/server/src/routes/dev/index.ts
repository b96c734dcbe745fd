import type { Context } from '../../context.ts';
import type { App } from '../../http/app-types.ts';
import * as devSession from './dev-session.ts';

/** Development-mode routes: registered only when the server signs its own sessions. */
export async function devRoutes(app: App, ctx: Context): Promise<void> {
  devSession.register(app, ctx);
}
