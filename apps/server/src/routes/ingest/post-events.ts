import { MAX_EVENTS_BODY_BYTES, MAX_EVENTS_PER_BATCH } from '@arbiter/contract';
import { type Static, Type } from 'typebox';
import { inactiveKeyProblem, keyCallerOf } from '../../http/api-key-auth.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import { type AcceptDeps, acceptEvents } from '../../ingest/accept.ts';
import { InactiveKeyError } from '../../ingest/event-log.ts';
import { EventShapes } from '../../ingest/event-shapes.ts';
import { refuseIfNothingAccepted } from '../../ingest/refusal.ts';
import { compileBodyValidator } from '../../schemas/validators.ts';
import { IngestAckSchema } from './ack.ts';

const BatchEnvelope = Type.Object(
  { events: Type.Array(Type.Unknown(), { minItems: 1, maxItems: MAX_EVENTS_PER_BATCH }) },
  { additionalProperties: false },
);

export function register(app: App, ctx: AcceptDeps): void {
  app.post(
    '/v1/events',
    {
      bodyLimit: MAX_EVENTS_BODY_BYTES,
      // The document states each event's shape; the request validates only the envelope, since
      // events are checked one by one in the handler and a bad one never sinks its batch.
      validatorCompiler: () => compileBodyValidator(BatchEnvelope),
      schema: {
        tags: ['ingest'],
        summary: `Report a batch of at most ${MAX_EVENTS_PER_BATCH} events (1 MiB); 202 once durably queued`,
        description:
          'Each event is checked on its own; invalid ones are listed by index in `rejected`.',
        security: [{ apiKey: [] }],
        body: Type.Object(
          { events: Type.Array(EventShapes, { minItems: 1, maxItems: MAX_EVENTS_PER_BATCH }) },
          { additionalProperties: false },
        ),
        response: { 202: IngestAckSchema, ...problemResponses(400, 401, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      const { events } = request.body as Static<typeof BatchEnvelope>;
      const caller = keyCallerOf(request);
      // the key came from the cache: the write checks it again, and stores nothing if it is gone
      const outcome = await acceptEvents(ctx, caller.orgId, events, {
        keyHash: caller.keyHash,
      }).catch(async (error: unknown) => {
        if (error instanceof InactiveKeyError) throw await inactiveKeyProblem(ctx, caller.keyHash);
        throw error;
      });
      refuseIfNothingAccepted(outcome, (i) => `#/events/${i}`);
      reply.status(202);
      return {
        accepted: outcome.accepted,
        duplicates: outcome.duplicates,
        conflicts: outcome.conflicts,
        config_version: outcome.configVersion,
        rejected: outcome.rejected,
      };
    },
  );
}
