import type { Context } from '../../context.ts';
import type { Plane } from '../../http/app-types.ts';
import { registerRoutes } from '../../http/register-routes.ts';
import * as contact from './contact.ts';
import * as openApiJson from './openapi-json.ts';
import * as problemDocs from './problem-docs.ts';

/** Routes that need no credential: the OpenAPI document, the problem pages and the contact form. */
export const publicRoutes: Plane<
  Pick<Context, 'db' | 'clock' | 'config' | 'contactNotifier'>
> = async (app, { ctx }) => {
  registerRoutes(app, ctx, [openApiJson, problemDocs, contact]);
};
