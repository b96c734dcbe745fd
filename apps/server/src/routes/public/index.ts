import type { Plane } from '../../http/app-types.ts';
import * as openApiJson from './openapi-json.ts';
import * as problemDocs from './problem-docs.ts';

/** Routes that need no credential: the OpenAPI document and the problem pages. */
export const publicRoutes: Plane = async (app) => {
  openApiJson.register(app);
  problemDocs.register(app);
};
