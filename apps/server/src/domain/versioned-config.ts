import { and, eq, type SQL, sql } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import { type Database, rows, type Transaction } from '../db/connect.ts';
import { UUID } from '../schemas/uuid.ts';
import { type AuditAction, recordAudit } from './audit.ts';
import { bumpConfigVersion } from './config-version.ts';
import type { Caller } from './identity/identity.ts';
import { isWebhookEventType } from './outbound-webhooks/event-types.ts';
import { enqueueWebhookEvent } from './outbound-webhooks/outbox.ts';
import { type DomainCode, DomainError } from './outcomes.ts';

/**
 * The shape an org's versioned config entities (experiments, holdouts, layers, saved groups)
 * share: each is addressed by id or by a name that is never shaped like a UUID; a create or a
 * change writes its row and mints a version, moves the org's config version (so every client
 * refetches) and leaves an audit entry, in one transaction. The sequence is written here once; an entity
 * passes in what differs: its rows, how it presents one, and the writes themselves
 * (docs/decisions/experiments.md#versioned-config-entities).
 */

type Reader = Pick<Database, 'select'>;

/** The audit targets that have a `.created` (or `.updated`) action. */
type Target<Verb extends string> = AuditAction extends infer A
  ? A extends `${infer T}.${Verb}`
    ? T
    : never
  : never;

export interface VersionedConfig<
  Row extends { id: string },
  Out,
  T extends Target<'created'> = Target<'created'>,
> {
  /** What the audit log names it; the actions are `<target>.created` and `<target>.updated`. */
  target: T;
  /** What people call it, and the name beside its id that paths address it by. */
  noun: string;
  nameField: 'name' | 'key';
  notFoundCode: DomainCode;
  /** The org's row addressed by id or name, locked for update when `lock`. */
  find(db: Reader, orgId: string, idOrName: string, lock: boolean): Promise<Row | undefined>;
  /** The org's rows in the order the list shows them. */
  list(db: Reader, orgId: string): Promise<Row[]>;
  /** Its current version: a change mints the next. */
  version(row: Row): number;
  present(db: Reader, row: Row): Out | Promise<Out>;
}

/** What a create or a change wrote: the row as it now stands, and the audit entry's details. */
export interface Written<Row> {
  row: Row;
  details: Record<string, unknown>;
}

/** The columns by which the org's rows of `table` are addressed. */
export interface AddressColumns {
  id: PgColumn;
  orgId: PgColumn;
  name: PgColumn;
}

/** The condition that picks the org's row by its id, or else by its name. */
export function addressedIn(columns: AddressColumns, orgId: string, idOrName: string): SQL {
  return and(
    UUID.test(idOrName) ? eq(columns.id, idOrName) : eq(columns.name, idOrName),
    eq(columns.orgId, orgId),
  ) as SQL;
}

/** `find` and `list` of an entity kept in one table: its rows as the table stores them. */
export function tableRows<T extends PgTable>(
  table: T,
  columns: AddressColumns,
  order: SQL[],
): {
  find(
    db: Reader,
    orgId: string,
    idOrName: string,
    lock: boolean,
  ): Promise<T['$inferSelect'] | undefined>;
  list(db: Reader, orgId: string): Promise<T['$inferSelect'][]>;
} {
  return {
    async find(db, orgId, idOrName, lock) {
      const query = db
        .select()
        .from(table as PgTable)
        .where(addressedIn(columns, orgId, idOrName));
      const [row] = await (lock ? query.for('update') : query);
      return row as T['$inferSelect'] | undefined;
    },
    async list(db, orgId) {
      const rows = await db
        .select()
        .from(table as PgTable)
        .where(eq(columns.orgId, orgId))
        .orderBy(...order);
      return rows as T['$inferSelect'][];
    },
  };
}

type Naming = Pick<VersionedConfig<never, unknown>, 'noun' | 'nameField' | 'notFoundCode'>;

function notFound(entity: Naming, idOrName: string): DomainError {
  return new DomainError(
    entity.notFoundCode,
    `No ${entity.noun} with the id or ${entity.nameField} "${idOrName}" in your org`,
  );
}

/** Refuses a name shaped like a UUID: paths would read it as an id. */
export function checkNameNotUuid(
  entity: Pick<Naming, 'nameField'>,
  name: string,
  addressedBy: string,
): void {
  if (!UUID.test(name)) return;
  const field = entity.nameField;
  throw new DomainError(
    'config-invalid',
    `1 invalid field in the body; first: #/${field} must not be shaped like a UUID`,
    {
      errors: [
        {
          pointer: `#/${field}`,
          detail: `must not be shaped like a UUID: ${addressedBy}`,
        },
      ],
    },
  );
}

/** The fields a change names, sorted, but for the frozen ones (refused when they differ). */
export function changedFields(change: object, frozen: readonly string[]): string[] {
  return Object.keys(change)
    .filter((k) => !frozen.includes(k))
    .sort();
}

/** The org's config version moves and the audit log records the write; then it is presented. */
async function recorded<Row extends { id: string }, Out>(
  tx: Transaction,
  caller: Caller,
  entity: VersionedConfig<Row, Out>,
  action: AuditAction,
  { row, details }: Written<Row>,
): Promise<Out> {
  await bumpConfigVersion(tx, caller.orgId);
  await recordAudit(tx, {
    orgId: caller.orgId,
    actorUserId: caller.userId,
    action,
    targetType: entity.target,
    targetId: row.id,
    details,
  });
  // Outbound webhooks name the change as the audit log does (`experiment.created`, …), when
  // that is an event type; queued in this transaction, so the change and its event land together,
  // at the transaction's instant as the rows' own timestamps are.
  if (isWebhookEventType(action)) {
    const data = { [`${entity.target}_id`]: row.id, ...details };
    const [at] = await rows<{ now: Date | string }>(tx, sql`select transaction_timestamp() as now`);
    await enqueueWebhookEvent(tx, caller.orgId, { type: action, data }, new Date(at!.now));
  }
  return entity.present(tx, row);
}

/** Creates the entity: `write` inserts its first version (and refuses a taken name). */
export async function createVersioned<Row extends { id: string }, Out>(
  db: Database,
  caller: Caller,
  entity: VersionedConfig<Row, Out>,
  write: (tx: Transaction) => Promise<Written<Row>>,
): Promise<Out> {
  return await db.transaction(async (tx) => {
    const written = await write(tx);
    return recorded(tx, caller, entity, `${entity.target}.created` as AuditAction, written);
  });
}

/**
 * Changes the entity: its row is locked, `write` stores version `version` (the current one's
 * next), and the audit entry's details carry that version.
 */
export async function updateVersioned<Row extends { id: string }, Out>(
  db: Database,
  caller: Caller,
  entity: VersionedConfig<Row, Out, Target<'updated'>>,
  idOrName: string,
  write: (tx: Transaction, row: Row, version: number) => Promise<Written<Row>>,
): Promise<Out> {
  return await db.transaction(async (tx) => {
    const row = await entity.find(tx, caller.orgId, idOrName, true);
    if (row === undefined) throw notFound(entity, idOrName);
    const version = entity.version(row) + 1;
    const written = await write(tx, row, version);
    return recorded(tx, caller, entity, `${entity.target}.updated`, {
      row: written.row,
      details: { ...written.details, version },
    });
  });
}

/** The org's entity addressed by id or name, as stored; refused when there is none. */
export async function findVersioned<Row extends { id: string }, Out>(
  db: Reader,
  orgId: string,
  entity: VersionedConfig<Row, Out>,
  idOrName: string,
): Promise<Row> {
  const row = await entity.find(db, orgId, idOrName, false);
  if (row === undefined) throw notFound(entity, idOrName);
  return row;
}

export async function getVersioned<Row extends { id: string }, Out>(
  db: Reader,
  orgId: string,
  entity: VersionedConfig<Row, Out>,
  idOrName: string,
): Promise<Out> {
  return entity.present(db, await findVersioned(db, orgId, entity, idOrName));
}

/** The org's entities in list order, presented one after another. */
export async function listVersioned<Row extends { id: string }, Out>(
  db: Reader,
  orgId: string,
  entity: VersionedConfig<Row, Out>,
): Promise<Out[]> {
  const out: Out[] = [];
  for (const row of await entity.list(db, orgId)) out.push(await entity.present(db, row));
  return out;
}

/** An entity's two reads as its service exports them: one by id or name, and the list. */
export function versionedReads<Row extends { id: string }, Out>(entity: VersionedConfig<Row, Out>) {
  return {
    get: (db: Reader, orgId: string, idOrName: string): Promise<Out> =>
      getVersioned(db, orgId, entity, idOrName),
    list: (db: Reader, orgId: string): Promise<Out[]> => listVersioned(db, orgId, entity),
  };
}
