import type { Context } from '../../context.ts';
import type { Plane } from '../../http/app-types.ts';
import { registerRoutes } from '../../http/register-routes.ts';
import { type SessionDeps, useSession } from '../../http/session-auth.ts';
import * as getRollout from './get-rollout.ts';
import * as listEvaluations from './list-evaluations.ts';
import * as moveRollout from './move-rollout.ts';

/** What the rollouts plane's hooks and routes use. */
export type RolloutDeps = SessionDeps & Pick<Context, 'db' | 'clock' | 'orgState'>;

/**
 * The rollouts plane: an experiment's ramp behind a dashboard session; any member reads it,
 * an admin or owner moves it (pause, resume, jump).
 */
export const rolloutRoutes: Plane<RolloutDeps> = async (app, { ctx }) => {
  useSession(app, ctx);
  registerRoutes(app, ctx, [getRollout, listEvaluations, moveRollout]);
};
