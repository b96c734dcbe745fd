import { groupReferences } from '@arbiter/conditions';
import { and, asc, eq, inArray, ne, sql } from 'drizzle-orm';
import type { Database, Transaction } from '../../db/connect.ts';
import { savedGroups } from '../../db/schema.ts';
import type { ConfigSizeLimits } from '../experiments/config-size.ts';
import type { Caller } from '../identity/identity.ts';
import { DomainError } from '../outcomes.ts';
import {
  changedFields,
  checkNameNotUuid,
  createVersioned,
  tableRows,
  updateVersioned,
  type VersionedConfig,
  versionedReads,
} from '../versioned-config.ts';
import type { SavedGroup, SavedGroupChange, SavedGroupInput } from './saved-group-schema.ts';

type Row = typeof savedGroups.$inferSelect;

function present(row: Row): SavedGroup {
  return {
    id: row.id,
    key: row.key,
    ...(row.description === null ? {} : { description: row.description }),
    values: row.values,
    version: row.version,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** Saved groups as versioned config: addressed by id or key, listed by key. */
const SAVED_GROUPS: VersionedConfig<Row, SavedGroup, 'saved_group'> = {
  target: 'saved_group',
  noun: 'saved group',
  nameField: 'key',
  notFoundCode: 'saved-group-not-found',
  ...tableRows(
    savedGroups,
    { id: savedGroups.id, orgId: savedGroups.orgId, name: savedGroups.key },
    [asc(savedGroups.key)],
  ),
  version: (row) => row.version,
  present: (_db, row) => present(row),
};

function keyTaken(key: string): DomainError {
  return new DomainError('saved-group-key-taken', `A saved group with the key "${key}" exists`, {
    errors: [{ pointer: '#/key', detail: 'already used in this org' }],
  });
}

/**
 * Every group ships in /v1/config beside the experiments, so the org's groups together are
 * held to the bound of the org's experiment configs (ARBITER_MAX_ORG_CONFIG_BYTES), checked
 * with the org row locked as a config change is.
 */
async function checkGroupsSize(
  tx: Transaction,
  orgId: string,
  groupId: string | null,
  values: SavedGroupInput['values'],
  limits: ConfigSizeLimits,
): Promise<void> {
  await tx.execute(sql`select 1 from orgs where id = ${orgId}::uuid for update`);
  const [others] = await tx
    .select({
      bytes: sql<number>`coalesce(sum(octet_length(${savedGroups.values}::text)), 0)`.mapWith(
        Number,
      ),
    })
    .from(savedGroups)
    .where(
      and(eq(savedGroups.orgId, orgId), groupId === null ? undefined : ne(savedGroups.id, groupId)),
    );
  const total = (others?.bytes ?? 0) + Buffer.byteLength(JSON.stringify(values));
  if (total > limits.maxOrgConfigBytes)
    throw new DomainError(
      'saved-group-too-large',
      `Your org's saved groups would total ${total} bytes of JSON with this one; an org may serve at most ${limits.maxOrgConfigBytes}`,
      { size_bytes: total, limit_bytes: limits.maxOrgConfigBytes },
    );
}

export async function createSavedGroup(
  db: Database,
  caller: Caller,
  input: SavedGroupInput,
  limits: ConfigSizeLimits,
): Promise<SavedGroup> {
  checkNameNotUuid(SAVED_GROUPS, input.key, 'groups are addressed by key or id');
  return await createVersioned(db, caller, SAVED_GROUPS, async (tx) => {
    await checkGroupsSize(tx, caller.orgId, null, input.values, limits);
    // The unique index decides a race between two creates of one key: no row back means taken.
    const [row] = await tx
      .insert(savedGroups)
      .values({
        orgId: caller.orgId,
        key: input.key,
        description: input.description ?? null,
        values: input.values,
        version: 1,
      })
      .onConflictDoNothing({ target: [savedGroups.orgId, savedGroups.key] })
      .returning();
    if (row === undefined) throw keyTaken(input.key);
    return { row, details: { key: row.key, values: row.values.length } };
  });
}

export async function updateSavedGroup(
  db: Database,
  caller: Caller,
  idOrKey: string,
  change: SavedGroupChange,
  limits: ConfigSizeLimits,
): Promise<SavedGroup> {
  return await updateVersioned(db, caller, SAVED_GROUPS, idOrKey, async (tx, row, version) => {
    if (change.key !== undefined && change.key !== row.key)
      throw new DomainError(
        'frozen-field',
        `key is frozen at ${JSON.stringify(row.key)}: targeting conditions name the group by it`,
        { errors: [{ pointer: '#/key', detail: `must stay ${JSON.stringify(row.key)}` }] },
      );
    const values = change.values ?? row.values;
    if (change.values !== undefined)
      await checkGroupsSize(tx, caller.orgId, row.id, values, limits);
    const [updated] = await tx
      .update(savedGroups)
      .set({
        values,
        description: change.description ?? row.description,
        version,
        updatedAt: sql`now()`,
      })
      .where(eq(savedGroups.id, row.id))
      .returning();
    return { row: updated!, details: { key: row.key, changed: changedFields(change, ['key']) } };
  });
}

/** The org's saved groups by id or key, and all of them in list order. */
export const { get: getSavedGroup, list: listSavedGroups } = versionedReads(SAVED_GROUPS);

/** Saved groups by key, as the config ships them and targeting reads them. */
export type SavedGroupValues = Record<string, Array<string | number>>;

/** The org's groups as the config ships them: key → values. */
export async function savedGroupValues(
  db: Pick<Database, 'select'>,
  orgId: string,
): Promise<SavedGroupValues> {
  const rows = await db
    .select({ key: savedGroups.key, values: savedGroups.values })
    .from(savedGroups)
    .where(eq(savedGroups.orgId, orgId))
    .orderBy(asc(savedGroups.key));
  return Object.fromEntries(rows.map((r) => [r.key, r.values]));
}

/**
 * Refuses targeting that names a saved group the org does not have: the evaluators read a
 * missing group as empty, so a typo would otherwise leave everyone out (or in) silently.
 */
export async function checkGroupsExist(
  tx: Pick<Database, 'select'>,
  orgId: string,
  targeting: unknown,
): Promise<void> {
  const references = groupReferences(targeting ?? {});
  if (references.length === 0) return;
  const keys = [...new Set(references.map((r) => r.key))];
  const found = await tx
    .select({ key: savedGroups.key })
    .from(savedGroups)
    .where(and(eq(savedGroups.orgId, orgId), inArray(savedGroups.key, keys)));
  const known = new Set(found.map((r) => r.key));
  const errors = references
    .filter((r) => !known.has(r.key))
    .map((r) => ({
      pointer: `#/targeting${r.pointer}`,
      detail: `no saved group has the key "${r.key}"`,
    }));
  if (errors.length > 0) {
    const first = errors[0]!;
    throw new DomainError(
      'config-invalid',
      `${errors.length} invalid field${errors.length === 1 ? '' : 's'} in the body; first: ${first.pointer} ${first.detail}`,
      { errors },
    );
  }
}
