import type {
  FastifyPluginAsyncTypebox,
  TypeBoxTypeProvider,
} from '@fastify/type-provider-typebox';
import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';

export type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/**
 * What app.ts hands a plane: the parts of the `Context` its routes and hooks use, named by the
 * plane (`Pick<Context, …>`), so a service added to the `Context` changes no plane that does
 * not use it.
 */
export interface PlaneOptions<Deps> {
  ctx: Deps;
}

/**
 * A plane (or a scope inside one): a TypeBox-typed plugin, registered with
 * `app.register(plane, { ctx })` in its own encapsulation context, so its hooks and body
 * parsers stay its own. Typed this way, the instance it receives is an `App` without a cast.
 */
export type Plane<Deps> = FastifyPluginAsyncTypebox<PlaneOptions<Deps>>;
