import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { keyCallerOf } from '../../http/api-key-auth.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';

const Span = Type.Object({ start: Type.Integer(), end: Type.Integer() });

const PromptRef = Type.Object(
  { name: Type.String(), version: Type.Integer() },
  {
    description:
      'The stored prompt version the variant serves; the version is in `prompts` (docs/wire-format.md#prompts)',
  },
);

const ClientPromptVersion = Type.Object({
  text: Type.Optional(Type.String()),
  messages: Type.Optional(Type.Array(Type.Object({ role: Type.String(), content: Type.String() }))),
  variables: Type.Array(Type.String()),
  model_settings: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
});

const ClientPrompt = Type.Object({
  labels: Type.Record(Type.String(), Type.Integer(), {
    description: 'Each label and the version it points at',
  }),
  versions: Type.Record(Type.String(), ClientPromptVersion, {
    description:
      'By version number: the versions a label points at or a served experiment’s variant references',
  }),
});

const ClientExperiment = Type.Object({
  id: Type.String(),
  name: Type.String(),
  version: Type.Integer(),
  salt: Type.String(),
  bucket_count: Type.Integer(),
  ranges: Type.Array(
    Type.Object({ variant: Type.String(), start: Type.Integer(), end: Type.Integer() }),
  ),
  variants: Type.Array(
    Type.Object({
      key: Type.String(),
      prompt: Type.Optional(
        Type.String({
          description:
            'The variant’s prompt text: inline, or the text of the text version `prompt_ref` names',
        }),
      ),
      prompt_ref: Type.Optional(PromptRef),
      variables: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    }),
  ),
  targeting: Type.Optional(
    Type.Record(Type.String(), Type.Unknown(), {
      description:
        'Who may enter: a condition over the attributes passed to assign (docs/wire-format.md); absent when everyone may',
    }),
  ),
  coverage: Type.Optional(
    Type.Number({
      description:
        'The share (0 to 1) of eligible users who enter while the experiment runs: a user enters when murmur3_x86_32(UTF-8("coverage:" + salt + ":" + user_id), seed 0) < coverage × 2^32 (docs/wire-format.md#coverage), else null (reason not_covered) and no exposure. Absent: 1. Not read once stopped',
    }),
  ),
  layer: Type.Optional(
    Type.String({ description: 'The layer (a name in `layers`) the experiment is in' }),
  ),
  layer_ranges: Type.Optional(
    Type.Array(Span, {
      description:
        'The layer buckets the experiment owns: sorted half-open runs, never overlapping another experiment’s in the layer',
    }),
  ),
  holdouts: Type.Optional(
    Type.Array(Type.String(), {
      description: 'Ids of the holdouts (in `holdouts`) that apply, in the order they were created',
    }),
  ),
  status: Type.Optional(
    Type.Enum(['draft', 'running', 'stopped'], {
      description:
        'draft: assign returns null (reason draft) and sends nothing; running: by bucket; stopped: every user the holdouts, layer and targeting admit gets served_variant, and no exposure of the experiment is sent. Absent: running (the server writes it only for draft and stopped, so older configs and offline files read the same). Archived experiments are absent from the config',
    }),
  ),
  served_variant: Type.Optional(
    Type.String({ description: 'The variant a stopped experiment serves; only when stopped' }),
  ),
});

const ClientLayer = Type.Object({
  name: Type.String(),
  salt: Type.String(),
  bucket_count: Type.Integer(),
});

const ClientHoldout = Type.Object({
  id: Type.String(),
  name: Type.String(),
  salt: Type.String(),
  bucket_count: Type.Integer(),
  ranges: Type.Array(Span, {
    description: 'Held-out buckets: [0, ⌈bucket_count × percent ÷ 100⌉), computed by the server',
  }),
});

/** The config as clients receive it (docs/wire-format.md). */
const ConfigBody = Type.Object({
  config_version: Type.Integer(),
  bucketing_version: Type.String(),
  experiments: Type.Array(ClientExperiment),
  saved_groups: Type.Optional(
    Type.Record(Type.String(), Type.Array(Type.Union([Type.String(), Type.Number()])), {
      description:
        'The org’s saved groups by key: the values `$inGroup`/`$notInGroup` look an attribute up in. Absent when the org has none',
    }),
  ),
  layers: Type.Optional(
    Type.Array(ClientLayer, {
      description:
        'The org’s layers (docs/wire-format.md#who-enters-an-experiment-holdouts-layers-targeting). Absent when the org has none',
    }),
  ),
  holdouts: Type.Optional(
    Type.Array(ClientHoldout, {
      description: 'The org’s holdouts, in creation order. Absent when the org has none',
    }),
  ),
  prompts: Type.Optional(
    Type.Record(Type.String(), ClientPrompt, {
      description:
        'The org’s prompts by name, for prompts.get in the clients (docs/wire-format.md#prompts). Absent when the org has none labelled or referenced',
    }),
  ),
});

/**
 * Each config version's answer, serialized once into bytes. An org near its 16 MiB bound took
 * 155 ms of the event loop per request to serialize (66 ms to encode a cached string), and
 * every client of the org polls this route. An entry lives as long as the org's cached state
 * keeps that version's body object.
 */
const serialized = new WeakMap<object, Buffer>();

export function register(app: App, ctx: Pick<Context, 'orgState'>): void {
  app.get(
    '/v1/config',
    {
      config: { rateLimit: false },
      schema: {
        tags: ['ingest'],
        summary: "The org's client config; 304 when If-None-Match carries the current ETag",
        security: [{ apiKey: [] }],
        response: {
          200: ConfigBody,
          304: Type.Null({ description: 'Unchanged since the ETag in If-None-Match' }),
          ...problemResponses(401),
        },
      },
    },
    async (request, reply) => {
      const state = await ctx.orgState.get(keyCallerOf(request).orgId);
      reply.header('etag', state.etag).header('cache-control', 'no-cache');
      const sent = request.headers['if-none-match'];
      if (sent?.split(',').some((tag) => tag.trim().replace(/^W\//, '') === state.etag)) {
        return reply.status(304).send(null);
      }
      let bytes = serialized.get(state.body);
      if (bytes === undefined) {
        // The route's own serializer, so the bytes are the ones the response schema gives.
        bytes = Buffer.from(String(reply.serialize(state.body)));
        serialized.set(state.body, bytes);
      }
      // Bytes are sent as they are; the type provider knows only the object.
      return reply
        .type('application/json; charset=utf-8')
        .send(bytes as unknown as typeof state.body);
    },
  );
}
