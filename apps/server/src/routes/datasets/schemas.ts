import { Type } from 'typebox';
import { ITEM_ID_MAX_LENGTH } from '../../domain/datasets/item.ts';
import { Text } from '../../schemas/text.ts';

/** Either credential (OR): a dashboard session of any org role, or the org's secret key. */
export const SESSION_OR_SECRET_KEY: Array<Record<string, string[]>> = [
  { session: [] },
  { apiKey: [] },
];

export const AUTH_NOTE =
  'A dashboard session of any org role, or the org’s secret key (`svc_sk_`, for a CI job) in `X-API-Key`; a publishable key is refused.';

/** The routes take no per-key rate limit: they are outside the ingest plane's limiter. */
export const NOT_RATE_LIMITED = { rateLimit: false } as const;

export const DatasetParams = Type.Object({
  id: Text({ maxLength: 200, description: 'The dataset id, or its name' }),
});

export const DatasetItemParams = Type.Object({
  id: Text({ maxLength: 200, description: 'The dataset id, or its name' }),
  item_id: Text({ minLength: 1, maxLength: ITEM_ID_MAX_LENGTH, description: 'The item id' }),
});
