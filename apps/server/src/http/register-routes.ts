import type { App } from './app-types.ts';

/** A route module: registers its route on an app with the parts of the context it uses. */
export interface RouteModule<Deps> {
  register(app: App, ctx: Deps): void;
}

/**
 * Registers a plane's route modules in the order given, each with the plane's context; the
 * order is the order of the OpenAPI document's paths.
 */
export function registerRoutes<Deps>(
  app: App,
  ctx: Deps,
  routes: ReadonlyArray<RouteModule<NoInfer<Deps>>>,
): void {
  for (const route of routes) route.register(app, ctx);
}
