import type { Context } from '../../context.ts';
import type { Plane } from '../../http/app-types.ts';
import * as devSession from './dev-session.ts';

/** Development-mode routes: registered only when the server signs its own sessions. */
export const devRoutes: Plane<Pick<Context, 'config'>> = async (app, { ctx }) => {
  devSession.register(app, ctx);
};
