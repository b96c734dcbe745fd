import { and, eq, inArray, isNull } from 'drizzle-orm';
import type { Database, Transaction } from '../../db/connect.ts';
import { datasetItems } from '../../db/schema.ts';
import type { TimeSlice } from '../../kernel/time-slice.ts';
import { recordAudit } from '../audit.ts';
import { checkItem, type DatasetItem } from './item.ts';
import { currentItemCount, type DatasetActor, lockDataset, mintVersion } from './service.ts';

/** One uploaded row, read but not yet checked; `line` is where it starts as submitted. */
export interface UploadRow {
  line: number;
  /** JSON `{items: [...]}`: the 0-based position in `items`. */
  index?: number;
  fields: Record<string, unknown>;
}

export interface UploadRowError {
  line: number;
  index?: number;
  detail: string;
}

export interface UploadLimits {
  /** ARBITER_MAX_DATASET_ITEMS */
  maxItems: number;
  /** ARBITER_MAX_DATASET_ITEM_BYTES */
  maxItemBytes: number;
}

export interface UploadOutcome {
  /** Items stored, new and replacing alike. */
  items: number;
  errors: UploadRowError[];
  /** The version minted, or the latest when no row was stored (nothing changed). */
  version: number;
}

/** Statements stay well under PostgreSQL's 65,535 parameters per statement. */
const CHUNK = 500;

const rowError = (row: UploadRow, detail: string): UploadRowError =>
  row.index === undefined
    ? { line: row.line, detail }
    : { line: row.line, index: row.index, detail };

interface Accepted {
  row: UploadRow;
  item: DatasetItem;
}

/**
 * Rows that make items, each id once; a later row of an id already in the upload is an error.
 * Checking a 10 MiB upload is CPU work on the request thread: it hands the loop back each slice.
 */
async function checkRows(rows: readonly UploadRow[], limits: UploadLimits, time: TimeSlice) {
  const accepted: Accepted[] = [];
  const errors: UploadRowError[] = [];
  const lineOf = new Map<string, number>();
  for (const row of rows) {
    if (time.due) await time.pause();
    const checked = checkItem(row.fields, limits.maxItemBytes);
    if ('problem' in checked) {
      errors.push(rowError(row, checked.problem));
      continue;
    }
    const earlier = lineOf.get(checked.item.id);
    if (earlier !== undefined) {
      errors.push(rowError(row, `id: "${checked.item.id}" is already sent on line ${earlier}`));
      continue;
    }
    lineOf.set(checked.item.id, row.line);
    accepted.push({ row, item: checked.item });
  }
  return { accepted, errors };
}

async function currentIds(tx: Transaction, datasetId: string, ids: string[]): Promise<Set<string>> {
  const found = new Set<string>();
  for (let i = 0; i < ids.length; i += CHUNK) {
    const rows = await tx
      .select({ itemId: datasetItems.itemId })
      .from(datasetItems)
      .where(
        and(
          eq(datasetItems.datasetId, datasetId),
          isNull(datasetItems.validTo),
          inArray(datasetItems.itemId, ids.slice(i, i + CHUNK)),
        ),
      );
    for (const r of rows) found.add(r.itemId);
  }
  return found;
}

/**
 * The rows that fit the item bound: a replacement always does, a new item only while the
 * version stays at most `maxItems` items; the others are row errors.
 */
function withinBound(
  accepted: Accepted[],
  existing: Set<string>,
  itemCount: number,
  maxItems: number,
) {
  const kept: Accepted[] = [];
  const errors: UploadRowError[] = [];
  let total = itemCount;
  for (const a of accepted) {
    if (existing.has(a.item.id)) kept.push(a);
    else if (total < maxItems) {
      kept.push(a);
      total += 1;
    } else {
      errors.push(
        rowError(
          a.row,
          `the dataset would hold more than ${maxItems} items (ARBITER_MAX_DATASET_ITEMS); delete items or use another dataset`,
        ),
      );
    }
  }
  return { kept, errors, total };
}

async function storeItems(
  tx: Transaction,
  target: { datasetId: string; version: number },
  kept: Accepted[],
  replaced: string[],
  time: TimeSlice,
) {
  const { datasetId, version } = target;
  for (let i = 0; i < replaced.length; i += CHUNK) {
    await tx
      .update(datasetItems)
      .set({ validTo: version })
      .where(
        and(
          eq(datasetItems.datasetId, datasetId),
          isNull(datasetItems.validTo),
          inArray(datasetItems.itemId, replaced.slice(i, i + CHUNK)),
        ),
      );
  }
  for (let i = 0; i < kept.length; i += CHUNK) {
    // Serialising a chunk's JSON is CPU work too (on PGlite the statement as well).
    await time.pause();
    await tx.insert(datasetItems).values(
      kept.slice(i, i + CHUNK).map(({ item }) => ({
        datasetId,
        itemId: item.id,
        validFrom: version,
        input: item.input,
        expectedOutput: item.expected_output,
        variables: item.variables,
        metadata: item.metadata,
        group: item.group,
      })),
    );
  }
}

/**
 * Stores an upload's good rows as one new version of the dataset: an item whose id the latest
 * version holds is replaced, any other is added. Rows are independent: a bad one is reported by
 * its line and skipped. An upload that stores nothing mints no version.
 */
export async function uploadItems(
  db: Database,
  actor: DatasetActor,
  idOrName: string,
  parsed: { rows: UploadRow[]; errors: UploadRowError[] },
  limits: UploadLimits,
  at: { now: Date; time: TimeSlice },
): Promise<UploadOutcome> {
  const { now, time } = at;
  const { accepted, errors: rowErrors } = await checkRows(parsed.rows, limits, time);
  return await db.transaction(async (tx) => {
    const row = await lockDataset(tx, actor.orgId, idOrName);
    const ids = accepted.map((a) => a.item.id);
    const existing = await currentIds(tx, row.id, ids);
    const count = await currentItemCount(tx, row.id);
    const bound = withinBound(accepted, existing, count, limits.maxItems);
    const errors = [...parsed.errors, ...rowErrors, ...bound.errors].sort(
      (a, b) => a.line - b.line || (a.index ?? 0) - (b.index ?? 0),
    );
    if (bound.kept.length === 0) return { items: 0, errors, version: row.currentVersion };
    const version = row.currentVersion + 1;
    const replaced = bound.kept.map((a) => a.item.id).filter((id) => existing.has(id));
    await storeItems(tx, { datasetId: row.id, version }, bound.kept, replaced, time);
    const itemCount = bound.total;
    await mintVersion(tx, row, { version, itemCount, change: 'items_uploaded', actor, now });
    await recordAudit(tx, {
      orgId: actor.orgId,
      actorUserId: actor.userId,
      action: 'dataset.items_uploaded',
      targetType: 'dataset',
      targetId: row.id,
      details: {
        version,
        items: bound.kept.length,
        replaced: replaced.length,
        errors: errors.length,
        via: actor.via,
      },
    });
    return { items: bound.kept.length, errors, version };
  });
}
