import type { Context } from '../../context.ts';
import type { Plane } from '../../http/app-types.ts';
import { registerRoutes } from '../../http/register-routes.ts';
import { type SessionDeps, useSession } from '../../http/session-auth.ts';
import * as createPrompt from './create-prompt.ts';
import * as createVersion from './create-version.ts';
import * as getPrompt from './get-prompt.ts';
import * as listPrompts from './list-prompts.ts';
import * as moveLabel from './move-label.ts';

/** What the prompts plane's hooks and routes use. */
export type PromptDeps = SessionDeps & Pick<Context, 'db' | 'orgState'>;

/**
 * The prompts plane: the org's prompts, their versions and labels, behind a dashboard session.
 * Members write prompts and versions, as they write experiments; moving a label changes what
 * users get, as starting or stopping an experiment does, so it takes an admin or owner.
 */
export const promptRoutes: Plane<PromptDeps> = async (app, { ctx }) => {
  useSession(app, ctx);
  registerRoutes(app, ctx, [listPrompts, createPrompt, getPrompt, createVersion, moveLabel]);
};
