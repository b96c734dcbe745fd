import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { DatasetItemInputSchema } from '../../domain/datasets/item.ts';
import { uploadItems } from '../../domain/datasets/upload.ts';
import type { App } from '../../http/app-types.ts';
import { ProblemError } from '../../http/problems.ts';
import { problemResponses } from '../../http/responses.ts';
import { orgCallerOf } from '../../http/session-or-key-auth.ts';
import {
  DATASET_CSV_COLUMNS,
  type ParsedDatasetUpload,
  parseDatasetCsv,
  parseDatasetJson,
  parseDatasetNdjson,
} from '../../ingest/import/dataset-upload.ts';
import { IMPORT_MAX_ROWS, ImportFormatError } from '../../ingest/import/index.ts';
import { ImportGate } from '../../ingest/import-gate.ts';
import { TimeSlice } from '../../kernel/time-slice.ts';
import { compileBodyValidator, validatorCompiler } from '../../schemas/validators.ts';
import { AUTH_NOTE, DatasetParams, NOT_RATE_LIMITED, SESSION_OR_SECRET_KEY } from './schemas.ts';

export const UPLOAD_MAX_BYTES = 10 * 1024 * 1024;

/** A JSON body as sent and as parsed: checked whole with pointers, then read item by item. */
class JsonUpload {
  constructor(
    readonly text: string,
    readonly value: unknown,
  ) {}
}

const JsonEnvelope = Type.Object(
  { items: Type.Array(Type.Unknown(), { maxItems: IMPORT_MAX_ROWS }) },
  { additionalProperties: false },
);
const checkEnvelope = compileBodyValidator(JsonEnvelope);
const checkText = compileBodyValidator(Type.String({ minLength: 1 }));

/** JSON bodies are checked against the envelope (each item on its own later); text is not empty. */
function validator() {
  const validate = (data: unknown): boolean => {
    const check = data instanceof JsonUpload ? checkEnvelope : checkText;
    const ok = check(data instanceof JsonUpload ? data.value : data);
    validate.errors = check.errors;
    return ok;
  };
  validate.errors = null as typeof checkText.errors;
  return validate;
}

const PARSERS: Record<
  string,
  (body: string | JsonUpload, time: TimeSlice) => Promise<ParsedDatasetUpload>
> = {
  'text/csv': (body, time) => parseDatasetCsv(body as string, time),
  'application/json': (body, time) => parseDatasetJson((body as JsonUpload).text, time),
  'application/x-ndjson': (body, time) => parseDatasetNdjson(body as string, time),
};

const RowErrorSchema = Type.Object({
  line: Type.Integer({ description: 'The 1-based line the row starts on, as submitted' }),
  index: Type.Optional(
    Type.Integer({ description: 'JSON: the 0-based position of the item in `items`' }),
  ),
  detail: Type.String(),
});

const UploadSchema = {
  tags: ['datasets'],
  summary: 'Upload items (JSON, NDJSON or CSV by Content-Type): one new version',
  description: `At most ${UPLOAD_MAX_BYTES / 1024 / 1024} MiB. An item whose \`id\` the latest version holds is replaced; an item without an \`id\` gets a generated one. Rows are independent: a bad row is reported by the 1-based line it starts on as submitted (and, in JSON, its \`index\`) and skipped. A row that would take the dataset past \`ARBITER_MAX_DATASET_ITEMS\` items, or an item over \`ARBITER_MAX_DATASET_ITEM_BYTES\` of JSON, is such a row error. An upload that stores at least one item mints a new version; one that stores none changes nothing and answers the latest version. CSV (RFC 4180, the events import's parser): a header row naming the columns ${DATASET_CSV_COLUMNS.join(', ')}, then \`var.<name>\` (a variable) and \`meta.<name>\` (metadata) as needed; an empty cell leaves its field out. ${AUTH_NOTE}`,
  security: SESSION_OR_SECRET_KEY,
  params: DatasetParams,
  body: {
    content: {
      'application/json': {
        schema: Type.Object(
          { items: Type.Array(DatasetItemInputSchema, { maxItems: IMPORT_MAX_ROWS }) },
          { additionalProperties: false },
        ),
      },
      'application/x-ndjson': {
        schema: Type.String({ minLength: 1, description: 'One item as JSON per line' }),
      },
      'text/csv': {
        schema: Type.String({
          minLength: 1,
          description: `RFC 4180 with a header row: ${DATASET_CSV_COLUMNS.join(', ')}, var.<name>, meta.<name>`,
        }),
      },
    },
  },
  response: {
    200: Type.Object({
      items: Type.Integer({ minimum: 0, description: 'Items stored, new and replacing alike' }),
      errors: Type.Array(RowErrorSchema),
      version: Type.Integer({
        minimum: 1,
        description: 'The version minted; the latest when nothing was stored',
      }),
    }),
    ...problemResponses(400, 401, 403, 404, 413, 415, 429),
  },
};

function readBody(_request: unknown, body: string, done: (e: Error | null, b?: unknown) => void) {
  done(null, body);
}

function readJson(_request: unknown, body: string, done: (e: Error | null, b?: unknown) => void) {
  try {
    done(null, new JsonUpload(body, JSON.parse(body)));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    done(new ProblemError('malformed-json', `The body is not valid JSON: ${reason}`));
  }
}

async function parsed(parse: (typeof PARSERS)[string], body: string | JsonUpload, time: TimeSlice) {
  try {
    return await parse(body, time);
  } catch (error) {
    if (error instanceof ImportFormatError) throw new ProblemError('import-format', error.message);
    throw error;
  }
}

/** Retry-After of an upload refused for the org's uploads at once: as the import's. */
const BUSY_RETRY_AFTER_SECONDS = 5;

function busy(perOrg: number): ProblemError {
  return new ProblemError(
    'import-concurrency-limit',
    `Your org already runs ${perOrg} dataset upload${perOrg === 1 ? '' : 's'} at once, the most allowed; send this one again when one of them has answered`,
    { limit: perOrg },
    { 'retry-after': String(BUSY_RETRY_AFTER_SECONDS) },
  );
}

export function register(app: App, ctx: Pick<Context, 'clock' | 'config' | 'db'>): void {
  // Uploads are bulk work as imports are: the same per-org bound, counted apart from imports.
  const gate = new ImportGate(ctx.config.importConcurrencyPerOrg);
  app.removeContentTypeParser('application/json');
  const options = { parseAs: 'string' as const, bodyLimit: UPLOAD_MAX_BYTES };
  app.addContentTypeParser(['text/csv', 'application/x-ndjson'], options, readBody);
  app.addContentTypeParser('application/json', options, readJson);
  app.post(
    '/v1/datasets/:id/items',
    {
      config: NOT_RATE_LIMITED,
      bodyLimit: UPLOAD_MAX_BYTES,
      // The document states each format's shape; a JSON body is checked as the envelope here
      // and each item on its own later, so a bad item never sinks its upload.
      validatorCompiler: (route) =>
        route.httpPart === 'body' ? validator() : validatorCompiler(route),
      schema: UploadSchema,
    },
    async (request) => {
      const type = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
      const parse = PARSERS[type];
      if (parse === undefined || request.body === undefined) {
        throw new ProblemError(
          'unsupported-media-type',
          `Send the items as ${Object.keys(PARSERS).join(', ')} with its Content-Type`,
        );
      }
      const caller = orgCallerOf(request);
      const release = gate.enter(caller.orgId);
      if (release === null) throw busy(gate.perOrg);
      try {
        // One time slice for the whole request: parse, checks and writes hand the loop back.
        const time = new TimeSlice();
        const rows = await parsed(parse, request.body as string | JsonUpload, time);
        const limits = {
          maxItems: ctx.config.maxDatasetItems,
          maxItemBytes: ctx.config.maxDatasetItemBytes,
        };
        return await uploadItems(ctx.db, caller, request.params.id, rows, limits, {
          now: ctx.clock.now(),
          time,
        });
      } finally {
        release();
      }
    },
  );
}
