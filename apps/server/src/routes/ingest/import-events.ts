import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { Type } from 'typebox';
import { apiKeyHook, keyCallerOf } from '../../http/api-key-auth.ts';
import type { App } from '../../http/app-types.ts';
import { ProblemError } from '../../http/problems.ts';
import { rawBodies } from '../../http/raw-bodies.ts';
import { problemResponses } from '../../http/responses.ts';
import type { AcceptDeps } from '../../ingest/accept.ts';
import {
  IMPORT_MAX_ROWS,
  ImportFormatError,
  type ParsedImport,
  parseCsvImport,
  parseJsonArrayImport,
  parseNdjsonImport,
} from '../../ingest/import/index.ts';
import { ImportGate } from '../../ingest/import-gate.ts';
import { importRows } from '../../ingest/import-rows.ts';
import { TimeSlice } from '../../kernel/time-slice.ts';
import { compileBodyValidator } from '../../schemas/validators.ts';

export const IMPORT_MAX_BYTES = 10 * 1024 * 1024;

/**
 * An import answers only once every row is checked and stored, which on a busy server can take
 * longer than the idle time the server otherwise allows a connection; closing the socket then
 * would drop an answer whose rows were accepted.
 */
export const IMPORT_SOCKET_TIMEOUT_MS = 10 * 60 * 1000;

/**
 * The import's socket timeout, raised as soon as the request is routed: its key check and its
 * body's upload (paused while the key is looked up) are then under it too, not under the
 * server's short idle time. What a silent import can hold is still bounded by the server's
 * request timeout until its body is in, as on every route.
 */
function keepOpenUntilAnswered(
  request: FastifyRequest,
  _reply: FastifyReply,
  done: HookHandlerDoneFunction,
): void {
  // An injected request (inject(), no network) has a stand-in socket without timeouts.
  request.raw.socket?.setTimeout?.(IMPORT_SOCKET_TIMEOUT_MS);
  done();
}

/** What a refused import is told to wait: a large import takes a few seconds. */
const BUSY_RETRY_AFTER_SECONDS = 5;

const PARSERS: Record<string, (text: string, time: TimeSlice) => Promise<ParsedImport>> = {
  'text/csv': parseCsvImport,
  'application/json': parseJsonArrayImport,
  'application/x-ndjson': parseNdjsonImport,
};

const ImportSchema = {
  tags: ['ingest'],
  summary:
    'Bulk import (secret key): CSV, JSON array or NDJSON by Content-Type, at most 10 MiB and 100,000 rows',
  description:
    'Rows are independent: each bad row is reported with the 1-based line where it starts (and, in a JSON array, its 0-based element `index`) and skipped; rows past the monthly allowance are reported the same way.',
  security: [{ apiKey: [] }],
  body: {
    content: {
      'text/csv': {
        schema: Type.String({
          minLength: 1,
          description: 'RFC 4180 with a header row naming the columns (the event fields)',
        }),
      },
      'application/json': {
        schema: Type.Array(Type.Unknown(), {
          maxItems: IMPORT_MAX_ROWS,
          description: 'An array of events; each row is checked on its own',
        }),
      },
      'application/x-ndjson': {
        schema: Type.String({ minLength: 1, description: 'One event as JSON per line' }),
      },
    },
  },
  response: {
    200: Type.Object({
      events: Type.Integer({ description: 'Rows accepted and enqueued' }),
      errors: Type.Array(
        Type.Object({
          line: Type.Integer(),
          index: Type.Optional(
            Type.Integer({ description: 'JSON array: the 0-based position of the element' }),
          ),
          detail: Type.String(),
        }),
      ),
      before_analysis_window: Type.Integer({
        minimum: 0,
        description:
          "Accepted rows dated before their experiment's analysis window (the UTC day it was created): stored for pre-period use such as CUPED, read by no results window",
      }),
    }),
    ...problemResponses(400, 401, 413, 415, 429),
  },
};

export async function register(app: App, ctx: AcceptDeps): Promise<void> {
  const gate = new ImportGate(ctx.config.importConcurrencyPerOrg);
  // This route reads its body as text and picks the parser by Content-Type.
  rawBodies(app, Object.keys(PARSERS), 'string', IMPORT_MAX_BYTES);
  app.post(
    '/v1/events/import',
    {
      onRequest: [
        keepOpenUntilAnswered,
        apiKeyHook(ctx, { secretOnly: true, authoritative: true }),
      ],
      bodyLimit: IMPORT_MAX_BYTES,
      // Every payload arrives as text and is parsed by its format's parser below; the document
      // states each format's shape, the request checks that there is a payload at all.
      validatorCompiler: () => compileBodyValidator(Type.String({ minLength: 1 })),
      schema: ImportSchema,
    },
    async (request) => {
      const type = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
      const parse = PARSERS[type];
      // Without a Content-Type (and so without a body) no parser ran.
      if (parse === undefined || typeof request.body !== 'string') {
        throw new ProblemError(
          'unsupported-media-type',
          `Send the payload as ${Object.keys(PARSERS).join(', ')} with its Content-Type`,
        );
      }
      const { orgId } = keyCallerOf(request);
      const release = gate.enter(orgId);
      if (release === null) throw busy(gate.perOrg);
      try {
        // One time slice for the whole request: parse and checks both hand the loop back.
        const time = new TimeSlice();
        return await importRows(ctx, orgId, await parsed(parse, request.body, time), time);
      } finally {
        release();
      }
    },
  );
}

async function parsed(
  parse: (text: string, time: TimeSlice) => Promise<ParsedImport>,
  body: string,
  time: TimeSlice,
): Promise<ParsedImport> {
  try {
    return await parse(body, time);
  } catch (error) {
    if (error instanceof ImportFormatError) throw new ProblemError('import-format', error.message);
    throw error;
  }
}

function busy(perOrg: number): ProblemError {
  return new ProblemError(
    'import-concurrency-limit',
    `Your org already runs ${perOrg} import${perOrg === 1 ? '' : 's'} at once, the most allowed; send this one again when one of them has answered`,
    { limit: perOrg },
    { 'retry-after': String(BUSY_RETRY_AFTER_SECONDS) },
  );
}
