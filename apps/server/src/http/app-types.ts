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
import type { Context } from '../context.ts';

export type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/** What app.ts hands every plane it registers. */
export interface PlaneOptions {
  ctx: Context;
}

/**
 * A plane (or a scope inside one): a TypeBox-typed plugin, registered with
 * `app.register(plane, { ctx })` in its own encapsulation context, so its hooks and body
 * parsers stay its own. Typed this way, the instance it receives is an `App` without a cast.
 */
export type Plane = FastifyPluginAsyncTypebox<PlaneOptions>;
