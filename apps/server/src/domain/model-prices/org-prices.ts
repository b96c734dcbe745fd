import { and, eq } from 'drizzle-orm';
import type { Database } from '../../db/connect.ts';
import { modelPrices } from '../../db/schema.ts';
import { recordAudit } from '../audit.ts';
import type { Caller } from '../identity/identity.ts';
import { DomainError } from '../outcomes.ts';
import { BUILT_IN_ROWS, type PriceRow, rowRef } from './price-book.ts';
import type { ModelPriceCache } from './price-cache.ts';
import { orgPriceRows } from './price-cache.ts';

/** A row as an admin sends it: the pattern is kept in lower case, as names are matched. */
export interface PriceInput {
  pattern: string;
  effective_from: string;
  input_per_million: number;
  output_per_million: number;
  cached_input_per_million?: number | null;
  reasoning_per_million?: number | null;
  source?: string | null;
}

/** The built-in table (with each row's provider) and the org's own rows, which win. */
export async function listPrices(db: Database, orgId: string) {
  return {
    currency: 'USD' as const,
    built_in: BUILT_IN_ROWS.map(({ origin: _o, effectiveMs: _e, ...row }) => ({
      ...row,
      provider: row.provider ?? '',
    })),
    org: (await orgPriceRows(db, orgId)).map((row) => ({ ...row, ref: rowRef('org', row) })),
  };
}

const audit = (
  tx: Pick<Database, 'insert'>,
  caller: Caller,
  action: string,
  row: object,
  ref: string,
) =>
  recordAudit(tx, {
    orgId: caller.orgId,
    actorUserId: caller.userId,
    action: action === 'put' ? 'model_price.put' : 'model_price.deleted',
    targetType: 'model_price',
    targetId: ref,
    details: { ...row },
  });

/**
 * Adds or replaces the org's row for one pattern and effective day. Stored costs stay as they
 * are: the row prices calls accepted from now on.
 */
export async function putPrice(
  db: Database,
  cache: ModelPriceCache,
  caller: Caller,
  input: PriceInput,
  now: Date,
): Promise<PriceRow & { ref: string }> {
  const row: PriceRow = {
    pattern: input.pattern.toLowerCase(),
    effective_from: input.effective_from,
    currency: 'USD',
    input_per_million: input.input_per_million,
    output_per_million: input.output_per_million,
    cached_input_per_million: input.cached_input_per_million ?? null,
    reasoning_per_million: input.reasoning_per_million ?? null,
    source: input.source ?? null,
  };
  const values = {
    pattern: row.pattern,
    effectiveFrom: row.effective_from,
    inputPerMillion: row.input_per_million,
    outputPerMillion: row.output_per_million,
    cachedInputPerMillion: row.cached_input_per_million,
    reasoningPerMillion: row.reasoning_per_million,
    source: row.source,
    updatedAt: now,
  };
  const ref = rowRef('org', row);
  await db.transaction(async (tx) => {
    await tx
      .insert(modelPrices)
      .values({ orgId: caller.orgId, ...values })
      .onConflictDoUpdate({
        target: [modelPrices.orgId, modelPrices.pattern, modelPrices.effectiveFrom],
        set: values,
      });
    await audit(tx, caller, 'put', row, ref);
  });
  cache.invalidate(caller.orgId);
  return { ...row, ref };
}

/** Removes one of the org's rows; calls it priced keep their cost and its name. */
export async function deletePrice(
  db: Database,
  cache: ModelPriceCache,
  caller: Caller,
  pattern: string,
  effectiveFrom: string,
): Promise<void> {
  const key = { pattern: pattern.toLowerCase(), effective_from: effectiveFrom };
  await db.transaction(async (tx) => {
    const gone = await tx
      .delete(modelPrices)
      .where(
        and(
          eq(modelPrices.orgId, caller.orgId),
          eq(modelPrices.pattern, key.pattern),
          eq(modelPrices.effectiveFrom, key.effective_from),
        ),
      )
      .returning({ pattern: modelPrices.pattern });
    if (gone.length === 0) {
      throw new DomainError(
        'model-price-not-found',
        `your org has no price row for "${key.pattern}" from ${key.effective_from}`,
      );
    }
    await audit(tx, caller, 'deleted', key, `org:${key.pattern}@${key.effective_from}`);
  });
  cache.invalidate(caller.orgId);
}
