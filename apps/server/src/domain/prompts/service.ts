import { and, asc, desc, eq, sql } from 'drizzle-orm';
import type { Database, Transaction } from '../../db/connect.ts';
import { promptLabels, prompts, promptVersions } from '../../db/schema.ts';
import type { PromptVersionInput } from '../../schemas/prompt.ts';
import { recordAudit } from '../audit.ts';
import type { Caller } from '../identity/identity.ts';
import { DomainError } from '../outcomes.ts';
import type { PromptSummary, PromptVersionView, PromptView } from './prompt-schema.ts';
import { templateOf } from './template.ts';

type Reader = Pick<Database, 'select'>;
type PromptRow = typeof prompts.$inferSelect;
type VersionRow = typeof promptVersions.$inferSelect;

export function promptNotFound(name: string): DomainError {
  return new DomainError('prompt-not-found', `No prompt named "${name}" in your org`);
}

/** The org's prompt of that name, locked for update when `lock`. */
export async function findPrompt(
  db: Reader,
  orgId: string,
  name: string,
  lock = false,
): Promise<PromptRow> {
  const query = db
    .select()
    .from(prompts)
    .where(and(eq(prompts.orgId, orgId), eq(prompts.name, name)));
  const [row] = await (lock ? query.for('update') : query);
  if (row === undefined) throw promptNotFound(name);
  return row;
}

export function presentVersion(row: VersionRow): PromptVersionView {
  return {
    version: row.version,
    ...(row.template.type === 'text'
      ? { text: row.template.text }
      : { messages: row.template.messages }),
    variables: row.variables,
    ...(row.modelSettings === null ? {} : { model_settings: row.modelSettings }),
    note: row.note,
    created_at: row.createdAt.toISOString(),
  };
}

/** Each prompt's labels, by prompt id. */
async function labelsOf(db: Reader, ids: string[]): Promise<Map<string, Record<string, number>>> {
  const out = new Map<string, Record<string, number>>(ids.map((id) => [id, {}]));
  if (ids.length === 0) return out;
  const rows = await db
    .select()
    .from(promptLabels)
    .where(sql`${promptLabels.promptId} in ${ids}`)
    .orderBy(asc(promptLabels.label));
  for (const r of rows) out.get(r.promptId)![r.label] = r.version;
  return out;
}

function summary(row: PromptRow, labels: Record<string, number>): PromptSummary {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    latest_version: row.latestVersion,
    labels,
    created_at: row.createdAt.toISOString(),
  };
}

async function present(db: Reader, row: PromptRow): Promise<PromptView> {
  const versions = await db
    .select()
    .from(promptVersions)
    .where(eq(promptVersions.promptId, row.id))
    .orderBy(desc(promptVersions.version));
  const labels = (await labelsOf(db, [row.id])).get(row.id)!;
  return { ...summary(row, labels), versions: versions.map(presentVersion) };
}

export async function listPrompts(db: Reader, orgId: string): Promise<PromptSummary[]> {
  const rows = await db
    .select()
    .from(prompts)
    .where(eq(prompts.orgId, orgId))
    .orderBy(asc(prompts.name));
  const labels = await labelsOf(
    db,
    rows.map((r) => r.id),
  );
  return rows.map((r) => summary(r, labels.get(r.id)!));
}

export async function getPrompt(db: Reader, orgId: string, name: string): Promise<PromptView> {
  return present(db, await findPrompt(db, orgId, name));
}

/** A new prompt with no version yet; a taken name is refused, the unique index deciding races. */
export async function createPrompt(
  db: Database,
  caller: Caller,
  input: { name: string; description?: string },
): Promise<PromptView> {
  return await db.transaction(async (tx) => {
    const [row] = await tx
      .insert(prompts)
      .values({
        orgId: caller.orgId,
        name: input.name,
        description: input.description ?? '',
        createdBy: caller.userId,
      })
      .onConflictDoNothing({ target: [prompts.orgId, prompts.name] })
      .returning();
    if (row === undefined) {
      throw new DomainError(
        'prompt-name-taken',
        `A prompt named "${input.name}" already exists in your org`,
        { errors: [{ pointer: '#/name', detail: 'is already used in this org' }] },
      );
    }
    await audit(tx, caller, 'prompt.created', row.id, { name: row.name });
    return present(tx, row);
  });
}

/**
 * The prompt's next version, numbered after its newest: the prompt's row is locked, so two
 * writers get two numbers. A version is never changed afterwards: there is no route to.
 */
export async function addVersion(
  db: Database,
  caller: Caller,
  name: string,
  input: PromptVersionInput,
): Promise<PromptVersionView> {
  const template = templateOf(input);
  return await db.transaction(async (tx) => {
    const row = await findPrompt(tx, caller.orgId, name, true);
    const version = row.latestVersion + 1;
    const [written] = await tx
      .insert(promptVersions)
      .values({
        promptId: row.id,
        version,
        template,
        variables: input.variables ?? [],
        modelSettings: input.model_settings ?? null,
        note: input.note ?? '',
        createdBy: caller.userId,
      })
      .returning();
    await tx.update(prompts).set({ latestVersion: version }).where(eq(prompts.id, row.id));
    await audit(tx, caller, 'prompt.version_created', row.id, { name, version });
    return presentVersion(written!);
  });
}

export function audit(
  tx: Transaction,
  caller: Caller,
  action: 'prompt.created' | 'prompt.version_created' | 'prompt.label_moved',
  promptId: string,
  details: Record<string, unknown>,
): Promise<void> {
  return recordAudit(tx, {
    orgId: caller.orgId,
    actorUserId: caller.userId,
    action,
    targetType: 'prompt',
    targetId: promptId,
    details,
  });
}
