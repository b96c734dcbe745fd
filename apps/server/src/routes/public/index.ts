import type { Context } from '../../context.ts';
import type { App } from '../../http/app-types.ts';
import * as contact from './contact.ts';
import * as openApiJson from './openapi-json.ts';
import * as problemDocs from './problem-docs.ts';

/** Routes that need no credential: the OpenAPI document, the problem pages and the contact form. */
export function publicRoutes(app: App, ctx: Context): void {
  openApiJson.register(app);
  problemDocs.register(app);
  contact.register(app, ctx);
}
