import { and, asc, count, eq, isNull } from 'drizzle-orm';
import type { Database, Transaction } from '../../db/connect.ts';
import { datasetItems, datasets, datasetVersions } from '../../db/schema.ts';
import { UUID } from '../../schemas/uuid.ts';
import { recordAudit } from '../audit.ts';
import { DomainError } from '../outcomes.ts';
import { addressedIn } from '../versioned-config.ts';

/** Who changes a dataset: a dashboard session (a user) or the org's secret key (no user). */
export interface DatasetActor {
  orgId: string;
  userId: string | null;
  via: 'session' | 'secret_key';
}

export interface Dataset {
  id: string;
  name: string;
  description: string | null;
  version: number;
  item_count: number;
  created_at: string;
  updated_at: string;
}

type DatasetRow = typeof datasets.$inferSelect;

export function notFound(idOrName: string): DomainError {
  return new DomainError(
    'dataset-not-found',
    `No dataset with the id or name "${idOrName}" in your org`,
  );
}

/** Paths address a dataset by id or by name; a name is never shaped like a UUID. */
export function addressed(orgId: string, idOrName: string) {
  return addressedIn(datasets, orgId, idOrName);
}

function present(row: DatasetRow, itemCount: number, updatedAt: Date): Dataset {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    version: row.currentVersion,
    item_count: itemCount,
    created_at: row.createdAt.toISOString(),
    updated_at: updatedAt.toISOString(),
  };
}

function nameProblem(name: string): DomainError | null {
  const errors = (detail: string) => ({ errors: [{ pointer: '#/name', detail }] });
  if (name.trim() === '')
    return new DomainError(
      'dataset-invalid',
      'A dataset name may not be blank',
      errors('is blank'),
    );
  if (UUID.test(name))
    return new DomainError(
      'dataset-invalid',
      `A dataset name may not be shaped like a UUID: paths take ids and names alike`,
      errors('is shaped like a UUID'),
    );
  return null;
}

export async function createDataset(
  db: Database,
  actor: DatasetActor,
  input: { name: string; description?: string | undefined },
  now: Date,
): Promise<Dataset> {
  const refused = nameProblem(input.name);
  if (refused !== null) throw refused;
  return await db.transaction(async (tx) => {
    // The unique index decides a race between two creates of one name: no row back means taken.
    const [row] = await tx
      .insert(datasets)
      .values({
        orgId: actor.orgId,
        name: input.name,
        description: input.description ?? null,
        currentVersion: 1,
        createdAt: now,
        updatedAt: now,
      })
      .onConflictDoNothing({ target: [datasets.orgId, datasets.name] })
      .returning();
    if (row === undefined) {
      throw new DomainError(
        'dataset-name-taken',
        `A dataset named "${input.name}" already exists in your org`,
        { errors: [{ pointer: '#/name', detail: 'is already used in this org' }] },
      );
    }
    await tx.insert(datasetVersions).values({
      datasetId: row.id,
      version: 1,
      itemCount: 0,
      change: 'created',
      createdBy: actor.userId,
      createdAt: now,
    });
    await recordAudit(tx, {
      orgId: actor.orgId,
      actorUserId: actor.userId,
      action: 'dataset.created',
      targetType: 'dataset',
      targetId: row.id,
      details: { name: row.name, version: 1, via: actor.via },
    });
    return present(row, 0, row.createdAt);
  });
}

/** Datasets joined to their current version, for the item count and when it was minted. */
function withCurrentVersion(db: Database) {
  return db
    .select({
      dataset: datasets,
      itemCount: datasetVersions.itemCount,
      at: datasetVersions.createdAt,
    })
    .from(datasets)
    .innerJoin(
      datasetVersions,
      and(
        eq(datasetVersions.datasetId, datasets.id),
        eq(datasetVersions.version, datasets.currentVersion),
      ),
    );
}

/** The org's datasets with their latest version, by name. */
export async function listDatasets(db: Database, orgId: string): Promise<Dataset[]> {
  const rows = await withCurrentVersion(db)
    .where(eq(datasets.orgId, orgId))
    .orderBy(asc(datasets.name));
  return rows.map((r) => present(r.dataset, r.itemCount, r.at));
}

export async function getDataset(db: Database, orgId: string, idOrName: string): Promise<Dataset> {
  const [found] = await withCurrentVersion(db).where(addressed(orgId, idOrName));
  if (found === undefined) throw notFound(idOrName);
  return present(found.dataset, found.itemCount, found.at);
}

/**
 * The dataset's row, locked for the rest of the transaction: changes of one dataset take turns,
 * so each mints the version after the one it read.
 */
export async function lockDataset(tx: Transaction, orgId: string, idOrName: string) {
  const [row] = await tx.select().from(datasets).where(addressed(orgId, idOrName)).for('update');
  if (row === undefined) throw notFound(idOrName);
  return row;
}

/** Items in the dataset's current version (read inside the transaction that holds its lock). */
export async function currentItemCount(tx: Transaction, datasetId: string): Promise<number> {
  const [row] = await tx
    .select({ n: count() })
    .from(datasetItems)
    .where(and(eq(datasetItems.datasetId, datasetId), isNull(datasetItems.validTo)));
  return row?.n ?? 0;
}

/** Records version `version` of a locked dataset, holding `itemCount` items; returns it as served. */
export async function mintVersion(
  tx: Transaction,
  row: DatasetRow,
  version: { version: number; itemCount: number; change: string; actor: DatasetActor; now: Date },
): Promise<Dataset> {
  const [minted] = await tx
    .insert(datasetVersions)
    .values({
      datasetId: row.id,
      version: version.version,
      itemCount: version.itemCount,
      change: version.change,
      createdBy: version.actor.userId,
      createdAt: version.now,
    })
    .returning();
  const [updated] = await tx
    .update(datasets)
    .set({ currentVersion: version.version, updatedAt: version.now })
    .where(eq(datasets.id, row.id))
    .returning();
  return present(updated!, version.itemCount, minted!.createdAt);
}

/** Deletes an item from the latest version: a new version without it. */
export async function deleteItem(
  db: Database,
  actor: DatasetActor,
  idOrName: string,
  itemId: string,
  now: Date,
): Promise<Dataset> {
  return await db.transaction(async (tx) => {
    const row = await lockDataset(tx, actor.orgId, idOrName);
    const version = row.currentVersion + 1;
    const closed = await tx
      .update(datasetItems)
      .set({ validTo: version })
      .where(
        and(
          eq(datasetItems.datasetId, row.id),
          eq(datasetItems.itemId, itemId),
          isNull(datasetItems.validTo),
        ),
      )
      .returning({ itemId: datasetItems.itemId });
    if (closed.length === 0) {
      throw new DomainError(
        'dataset-item-not-found',
        `The latest version of dataset "${row.name}" holds no item with the id "${itemId}"`,
      );
    }
    const itemCount = await currentItemCount(tx, row.id);
    const dataset = await mintVersion(tx, row, {
      version,
      itemCount,
      change: 'item_deleted',
      actor,
      now,
    });
    await recordAudit(tx, {
      orgId: actor.orgId,
      actorUserId: actor.userId,
      action: 'dataset.item_deleted',
      targetType: 'dataset',
      targetId: row.id,
      details: { item_id: itemId, version, via: actor.via },
    });
    return dataset;
  });
}
