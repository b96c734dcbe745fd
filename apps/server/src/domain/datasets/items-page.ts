import { and, eq, gt, inArray, isNull, lte, or, type SQL, sql } from 'drizzle-orm';
import type { Database } from '../../db/connect.ts';
import { datasetItems, datasets } from '../../db/schema.ts';
import { fitByteBudget } from '../../kernel/byte-budget.ts';
import { DomainError } from '../outcomes.ts';
import type { DatasetItem } from './item.ts';
import { addressed, notFound } from './service.ts';

export const ITEMS_PAGE_DEFAULT = 100;
export const ITEMS_PAGE_MAX = 1000;
/**
 * A page stops before this many bytes of items, whatever its `limit`: an item may be up to
 * ARBITER_MAX_DATASET_ITEM_BYTES. A single larger item still makes a page of one.
 */
export const ITEMS_PAGE_MAX_BYTES = 8 * 1024 * 1024;

export interface ItemPageRequest {
  /** The version to read; the latest when absent. */
  version?: number;
  limit: number;
  /** Items whose id sorts after this one (the next page). */
  startingAfter?: string;
}

export interface ItemPage {
  data: DatasetItem[];
  /** More items lie after this page (Stripe's `has_more`). */
  has_more: boolean;
  /** The version read. */
  version: number;
}

/**
 * Ids sort by their bytes (the C collation), the same on every server whatever its locale, so a
 * cursor means the same on PGlite and PostgreSQL.
 */
const byteOrder = sql`${datasetItems.itemId} collate "C"`;

/** The rows of version `version`: valid_from <= version < valid_to (null: still current). */
export function inVersion(datasetId: string, version: number): SQL | undefined {
  return and(
    eq(datasetItems.datasetId, datasetId),
    lte(datasetItems.validFrom, version),
    or(isNull(datasetItems.validTo), gt(datasetItems.validTo, version)),
  );
}

async function versionOf(db: Database, orgId: string, idOrName: string, asked?: number) {
  const [row] = await db.select().from(datasets).where(addressed(orgId, idOrName));
  if (row === undefined) throw notFound(idOrName);
  if (asked === undefined) return { datasetId: row.id, version: row.currentVersion };
  if (asked < 1 || asked > row.currentVersion) {
    throw new DomainError(
      'dataset-version-not-found',
      `Dataset "${row.name}" has versions 1 to ${row.currentVersion}, not ${asked}`,
    );
  }
  return { datasetId: row.id, version: asked };
}

/**
 * One page of the items of a dataset version, by id. The sizes are read first, then only the
 * items that fit, so neither the answer nor the process holds more than the byte budget.
 */
export async function listItems(
  db: Database,
  orgId: string,
  idOrName: string,
  page: ItemPageRequest,
): Promise<ItemPage> {
  const { datasetId, version } = await versionOf(db, orgId, idOrName, page.version);
  const where = and(
    inVersion(datasetId, version),
    page.startingAfter === undefined ? undefined : sql`${byteOrder} > ${page.startingAfter}`,
  );
  const sizes = await db
    .select({
      itemId: datasetItems.itemId,
      bytes:
        sql<number>`octet_length(${datasetItems.input}::text) + octet_length(coalesce(${datasetItems.expectedOutput}::text, '')) + octet_length(${datasetItems.variables}::text) + octet_length(${datasetItems.metadata}::text)`.mapWith(
          Number,
        ),
    })
    .from(datasetItems)
    .where(where)
    .orderBy(byteOrder)
    .limit(page.limit + 1);
  const ids = fitByteBudget(sizes, page.limit, ITEMS_PAGE_MAX_BYTES).map((r) => r.itemId);
  const rows =
    ids.length === 0
      ? []
      : await db
          .select({
            itemId: datasetItems.itemId,
            // As text, parsed here: a driver that hands jsonb back parsed has the ORM parse a
            // string value once more, so the input "4" would come back as the number 4.
            input: sql<string>`${datasetItems.input}::text`,
            expectedOutput: sql<string | null>`${datasetItems.expectedOutput}::text`,
            variables: datasetItems.variables,
            metadata: datasetItems.metadata,
            group: datasetItems.group,
          })
          .from(datasetItems)
          .where(and(inVersion(datasetId, version), inArray(datasetItems.itemId, ids)))
          .orderBy(byteOrder);
  return {
    data: rows.map((r) => ({
      id: r.itemId,
      input: JSON.parse(r.input) as DatasetItem['input'],
      expected_output: r.expectedOutput === null ? null : JSON.parse(r.expectedOutput),
      variables: r.variables,
      metadata: r.metadata,
      group: r.group,
    })),
    has_more: sizes.length > ids.length,
    version,
  };
}
