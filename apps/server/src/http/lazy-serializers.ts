import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

type SerializerFactory = ReturnType<typeof SerializerSelector>;
type RouteDefinition = Parameters<ReturnType<SerializerFactory>>[0];

const eager = SerializerSelector();

/**
 * Fastify's own response serializers (fast-json-stringify), each compiled on its route's first
 * answer instead of all of them before the listener opens: compiling every route's serializers
 * was the largest part of a restart (docs/decisions/operations.md#build-start-and-the-demo). The output is
 * the same bytes. Each route compiles from a fresh copy of the factory's options, so the order
 * in which routes first answer cannot change what a serializer sees.
 */
export function lazySerializerFactory(
  externalSchemas?: unknown,
  options?: Parameters<SerializerFactory>[1],
): ReturnType<SerializerFactory> {
  return (route: RouteDefinition) => {
    let serialize: ((doc: unknown) => string) | undefined;
    return (doc: unknown) => {
      serialize ??= eager(externalSchemas, options)(route);
      return serialize(doc);
    };
  };
}
