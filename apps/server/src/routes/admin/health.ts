import { Type } from 'typebox';
import { nightlyHealth } from '../../analysis/run/nightly-health.ts';
import type { Context } from '../../context.ts';
import { pingDatabase } from '../../db/health.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import { ingestHealth } from '../../ingest/ingest-health.ts';
import { shardHealth } from '../../ingest/shards/shard-health.ts';
import { configuredProviders } from '../../integrations/configured-providers.ts';

const NullableString = Type.Union([Type.String(), Type.Null()]);

const DatabaseSchema = Type.Object({
  reachable: Type.Boolean(),
  latency_ms: Type.Union([Type.Number(), Type.Null()], {
    description: 'One `select 1` round trip',
  }),
  error: Type.Optional(Type.String()),
});

const IngestSchema = Type.Object({
  unfolded_events: Type.Integer({ description: 'Stored events not yet in the aggregates' }),
  oldest_unfolded_at: NullableString,
  fold_lag_seconds: Type.Integer({ description: 'How long the oldest unfolded event has waited' }),
  quarantined_events: Type.Integer(),
  quarantined_by_org: Type.Array(Type.Object({ org_id: Type.String(), events: Type.Integer() })),
  recent_quarantined: Type.Array(
    Type.Object({
      org_id: Type.String(),
      event_id: Type.String(),
      experiment_id: NullableString,
      type: NullableString,
      reason: Type.String(),
      quarantined_at: Type.String({ format: 'date-time' }),
    }),
  ),
});

const ShardSchema = Type.Object({
  position: Type.Integer({ description: "The shard's fixed position in ARBITER_SHARD_URLS" }),
  address: Type.String({
    description:
      'Host, port and database of the shard (no credentials); "the control database" without ARBITER_SHARD_URLS',
  }),
  reachable: Type.Boolean(),
  latency_ms: Type.Union([Type.Number(), Type.Null()]),
  error: Type.Optional(Type.String()),
  fold_lag_seconds: Type.Union([Type.Integer(), Type.Null()], {
    description:
      "How long this shard's oldest unfolded event has waited; null when it does not answer",
  }),
  unfolded_events: Type.Union([Type.Integer(), Type.Null()]),
});

const NightlySchema = Type.Object({
  schedule: Type.String({ description: 'ARBITER_NIGHTLY_CRON (UTC)' }),
  scheduler_in_this_process: Type.Boolean(),
  next_run_at: NullableString,
  last_run: Type.Union([
    Type.Object({
      day: Type.String({ format: 'date' }),
      started_at: Type.String({ format: 'date-time' }),
      finished_at: Type.String({ format: 'date-time' }),
      outcome: Type.Union([Type.Literal('succeeded'), Type.Literal('failed')]),
      experiments: Type.Integer(),
      error: NullableString,
    }),
    Type.Null(),
  ]),
});

const DiskSchema = Type.Union(
  [
    Type.Object({
      path: Type.String({ description: "The embedded database's directory" }),
      free_bytes: Type.Union([Type.Integer(), Type.Null()], {
        description: 'Free space of its file system; null when it cannot be read',
      }),
      min_free_bytes: Type.Integer({ description: 'ARBITER_MIN_FREE_DISK_BYTES' }),
      writes_accepted: Type.Boolean({
        description: 'False while below the threshold: writes answer 507 until space is back',
      }),
      error: Type.Optional(Type.String()),
    }),
    Type.Null(),
  ],
  { description: 'Free space of the embedded database; null on a PostgreSQL server or in memory' },
);

const ProvidersSchema = Type.Object(
  {
    identity: Type.Boolean({ description: 'Session tokens from an identity provider (JWKS)' }),
    identity_webhooks: Type.Boolean({ description: 'An identity webhook signing secret (Svix)' }),
    identity_directory: Type.Boolean({
      description: 'An identity provider Backend API key (seat caps)',
    }),
    judge: Type.Boolean({ description: 'A judge model endpoint' }),
    mail: Type.Boolean({ description: 'An SMTP server for mail to platform owners' }),
    billing: Type.Boolean({ description: 'A billing provider API key (checkout, portal)' }),
    billing_webhooks: Type.Boolean({ description: 'A billing webhook endpoint secret' }),
  },
  { description: 'Which outside services are configured' },
);

const PatternsSchema = Type.Object(
  {
    scanned_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'When the start-up scan of stored targeting finished; null until it has',
    }),
    refused: Type.Array(
      Type.Object({
        org_id: Type.String(),
        experiment_id: Type.String(),
        experiment: Type.String({ description: "The experiment's name" }),
        pointer: Type.String({ description: 'JSON Pointer to the pattern in the targeting' }),
        pattern: Type.String(),
        insensitive: Type.Boolean({ description: 'true for $regexi' }),
        reason: Type.String(),
        found_by: Type.Union([Type.Literal('rule'), Type.Literal('analyser')], {
          description:
            '`rule`: the static rule every evaluator applies; `analyser`: the server’s ReDoS analyser (recheck), which only the server consults',
        }),
      }),
    ),
  },
  {
    description:
      'Stored $regex/$regexi patterns that a save would now refuse: the server never runs them (the condition matches no one)',
  },
);

export function register(
  app: App,
  ctx: Pick<Context, 'clock' | 'config' | 'db' | 'disk' | 'patterns' | 'shards'>,
): void {
  app.get(
    '/v1/admin/health',
    {
      schema: {
        tags: ['admin'],
        summary:
          'Dependency and pipeline health: database, its disk, ingest fold lag and quarantine, the nightly run, configured providers, stored patterns never run',
        response: {
          200: Type.Object({
            database: DatabaseSchema,
            disk: DiskSchema,
            shards: Type.Array(ShardSchema, {
              description: 'Every database that holds event data, in position order',
            }),
            ingest: Type.Union([IngestSchema, Type.Null()], {
              description:
                'null when the database is unreachable; over the shards that answer otherwise',
            }),
            nightly: Type.Union([NightlySchema, Type.Null()]),
            providers: ProvidersSchema,
            patterns: PatternsSchema,
          }),
          ...problemResponses(401, 403),
        },
      },
    },
    async () => {
      const now = ctx.clock.now();
      const database = await pingDatabase(ctx.db);
      const disk = ctx.disk === null ? null : await ctx.disk.status(true);
      const providers = configuredProviders(ctx.config);
      const shards = await shardHealth(ctx.shards, now);
      const patterns = ctx.patterns.status();
      if (!database.reachable)
        return { database, disk, shards, ingest: null, nightly: null, providers, patterns };
      const schedule = { cron: ctx.config.nightlyCron, schedulerEnabled: ctx.config.scheduler };
      const answering = ctx.shards.all.filter((_, i) => shards[i]?.reachable).map((s) => s.db);
      return {
        database,
        disk,
        shards,
        ingest: await ingestHealth(answering, now),
        nightly: await nightlyHealth(ctx.db, schedule, now),
        providers,
        patterns,
      };
    },
  );
}
