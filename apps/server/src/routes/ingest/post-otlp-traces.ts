import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { apiKeyHook, keyCallerOf } from '../../http/api-key-auth.ts';
import type { App } from '../../http/app-types.ts';
import { ProblemError } from '../../http/problems.ts';
import { rawBodies } from '../../http/raw-bodies.ts';
import { problemResponses } from '../../http/responses.ts';
import type { AcceptDeps } from '../../ingest/accept.ts';
import { ImportGate } from '../../ingest/import-gate.ts';
import { acceptOtlpTraces } from '../../ingest/otlp/accept-traces.ts';
import {
  decodeTraces,
  inflated,
  jsonResponse,
  type OtlpEncoding,
  protobufResponse,
} from '../../ingest/otlp/decode.ts';
import {
  OTLP_BUSY_RETRY_AFTER_SECONDS,
  OTLP_EXPORTS_PER_ORG,
  OTLP_MAX_ATTRIBUTES,
  OTLP_MAX_BODY_BYTES,
  OTLP_MAX_SPANS,
  OTLP_MAX_VALUE_DEPTH,
} from '../../ingest/otlp/limits.ts';
import { IngestError } from '../../ingest/outcomes.ts';
import { TimeSlice } from '../../kernel/time-slice.ts';

/** Characters of the key a refusal's log line shows: its scope prefix and four more. */
const KEY_PREFIX_LOGGED = 11;

const ENCODINGS: Record<string, OtlpEncoding> = {
  'application/x-protobuf': 'protobuf',
  'application/json': 'json',
};

const Binary = Type.String({ format: 'binary' });

const PartialSuccess = Type.Object(
  {
    rejectedSpans: Type.String({
      pattern: '^[0-9]+$',
      description: 'GenAI spans not stored (int64, a decimal string as proto3 JSON writes it)',
    }),
    errorMessage: Type.String({ description: 'Why, span by span (the first few)' }),
  },
  { description: 'Present only when a span was rejected' },
);

const TracesSchema = {
  tags: ['ingest'],
  summary:
    'OTLP/HTTP trace export: GenAI model-call spans become model_call events (202, OTLP ExportTraceServiceResponse)',
  description: [
    'The body is an OTLP ExportTraceServiceRequest, binary protobuf (`application/x-protobuf`) or OTLP JSON (`application/json`), optionally `Content-Encoding: gzip`, at most 16 MiB as sent and 32 MiB unpacked.',
    `At most ${OTLP_MAX_SPANS} spans, ${OTLP_MAX_ATTRIBUTES} attributes in a list and attribute values nested ${OTLP_MAX_VALUE_DEPTH} deep (413 or 400 beyond); an org has at most ${OTLP_EXPORTS_PER_ORG} exports decoded at once (429 with Retry-After beyond).`,
    "Spans with `gen_ai.operation.name` `chat`, `text_completion` or `generate_content` are stored as `model_call` events (event id `<trace id>-<span id>`), a user's first one with an exposure; the experiment and user come from the attributes `arbiter.experiment` and `arbiter.user_id`. Other spans are acknowledged and ignored. The answer is in the request's encoding; `partialSuccess` counts and explains the GenAI spans rejected. See docs/integrations/otlp.md.",
  ].join(' '),
  security: [{ apiKey: [] }],
  body: {
    content: {
      'application/x-protobuf': { schema: Binary },
      'application/json': {
        schema: Type.Object(
          // proto3's JSON mapping reads null as the field's default, an empty list here.
          { resourceSpans: Type.Optional(Type.Union([Type.Array(Type.Unknown()), Type.Null()])) },
          { description: 'OTLP JSON: hex trace and span ids, enums as integers' },
        ),
      },
    },
  },
  response: {
    202: {
      description: 'ExportTraceServiceResponse, in the encoding of the request',
      content: {
        'application/json': {
          schema: Type.Object({ partialSuccess: Type.Optional(PartialSuccess) }),
        },
        'application/x-protobuf': { schema: Binary },
      },
    },
    ...problemResponses(400, 401, 413, 415, 429),
  },
};

function encodingOf(contentType: string | undefined): OtlpEncoding | undefined {
  return ENCODINGS[(contentType ?? '').split(';')[0]!.trim().toLowerCase()];
}

export async function register(app: App, ctx: AcceptDeps): Promise<void> {
  const gate = new ImportGate(OTLP_EXPORTS_PER_ORG);
  // Both encodings arrive as bytes: the body may be gzip, and protobuf is not text anyway.
  rawBodies(app, Object.keys(ENCODINGS), 'buffer', OTLP_MAX_BODY_BYTES);
  app.post(
    '/v1/otlp/v1/traces',
    {
      onRequest: apiKeyHook(ctx, { authoritative: true }),
      bodyLimit: OTLP_MAX_BODY_BYTES,
      config: { contentEncodings: ['gzip'] },
      // The bytes are decoded by the handler; the document states both encodings' shapes.
      validatorCompiler: () => () => true,
      schema: TracesSchema,
    },
    async (request, reply) => {
      const encoding = encodingOf(request.headers['content-type']);
      if (encoding === undefined || !Buffer.isBuffer(request.body)) {
        throw new ProblemError(
          'unsupported-media-type',
          `Send the OTLP export as ${Object.keys(ENCODINGS).join(' or ')} with its Content-Type`,
        );
      }
      const { orgId } = keyCallerOf(request);
      const release = gate.enter(orgId);
      try {
        if (release === null) throw busy();
        const gzipped = (request.headers['content-encoding'] ?? '').trim().toLowerCase() === 'gzip';
        // One time slice for the whole request: decoding and acceptance both hand the loop back.
        const slice = new TimeSlice();
        const spans = await decodeTraces(
          await inflated(request.body, gzipped, encoding),
          encoding,
          slice,
        );
        const partial = await acceptOtlpTraces(ctx, orgId, spans, slice);
        reply.status(202);
        if (encoding === 'json') return jsonResponse(partial);
        reply.type('application/x-protobuf');
        // Fastify sends a Buffer as it is; the type provider knows binary only as the document's string.
        return protobufResponse(partial) as unknown as string;
      } catch (error) {
        logRefusal(request, orgId, error);
        throw error;
      } finally {
        release?.();
      }
    },
  );
}

function busy(): ProblemError {
  return new ProblemError(
    'otlp-concurrency-limit',
    `Your org already has ${OTLP_EXPORTS_PER_ORG} OTLP exports being decoded at once, the most allowed; send this one again after ${OTLP_BUSY_RETRY_AFTER_SECONDS} seconds`,
    { limit: OTLP_EXPORTS_PER_ORG },
    { 'retry-after': String(OTLP_BUSY_RETRY_AFTER_SECONDS) },
  );
}

const REFUSALS = new Set(['otlp-too-large', 'otlp-unreadable']);

/** One warn line for an export refused for its limits, its shape or the org's concurrency. */
function logRefusal(request: FastifyRequest, orgId: string, error: unknown): void {
  let refusal: string | null = null;
  if (error instanceof IngestError && REFUSALS.has(error.code)) refusal = error.code;
  else if (error instanceof ProblemError && error.slug === 'otlp-concurrency-limit') {
    refusal = error.slug;
  }
  if (refusal === null) return;
  const raw = request.headers['x-api-key'];
  const key = typeof raw === 'string' ? raw.trim() : '';
  request.log.warn(
    {
      org_id: orgId,
      key_prefix: key.slice(0, KEY_PREFIX_LOGGED),
      refusal,
      detail: (error as Error).message,
    },
    'OTLP export refused',
  );
}
