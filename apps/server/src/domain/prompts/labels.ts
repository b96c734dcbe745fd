import { and, eq, sql } from 'drizzle-orm';
import type { Database, Transaction } from '../../db/connect.ts';
import { promptLabels } from '../../db/schema.ts';
import { bumpConfigVersion } from '../config-version.ts';
import type { Caller } from '../identity/identity.ts';
import { DomainError } from '../outcomes.ts';
import type { PromptView } from './prompt-schema.ts';
import { audit, findPrompt, getPrompt } from './service.ts';

/** What a label move did: the version it pointed at before (null: new), and whether it moved. */
export interface LabelMove {
  from: number | null;
  to: number;
  moved: boolean;
}

/**
 * Points the prompt's label at `version` inside the caller's transaction. A move writes the
 * label, leaves a `prompt.label_moved` audit entry (with `cause`, such as the experiment whose
 * stop released it) and moves the org's config version on, so clients read the new version
 * from their next poll. Pointing a label where it already points changes nothing.
 */
export async function moveLabel(
  tx: Transaction,
  caller: Caller,
  name: string,
  label: string,
  version: number,
  cause: Record<string, unknown> = {},
  pointer = '#/version',
): Promise<LabelMove> {
  const prompt = await findPrompt(tx, caller.orgId, name, true);
  if (version > prompt.latestVersion) {
    const has =
      prompt.latestVersion === 0
        ? 'has no version yet'
        : `has versions 1 to ${prompt.latestVersion}`;
    throw new DomainError(
      'config-invalid',
      `1 invalid field in the body; first: ${pointer} prompt "${name}" ${has}`,
      { errors: [{ pointer, detail: `prompt "${name}" ${has}` }] },
    );
  }
  const where = and(eq(promptLabels.promptId, prompt.id), eq(promptLabels.label, label));
  const [current] = await tx.select().from(promptLabels).where(where);
  const from = current?.version ?? null;
  if (from === version) return { from, to: version, moved: false };
  await tx
    .insert(promptLabels)
    .values({ promptId: prompt.id, label, version, movedBy: caller.userId })
    .onConflictDoUpdate({
      target: [promptLabels.promptId, promptLabels.label],
      set: { version, movedBy: caller.userId, movedAt: sql`now()` },
    });
  await audit(tx, caller, 'prompt.label_moved', prompt.id, {
    name,
    label,
    from,
    to: version,
    ...cause,
  });
  await bumpConfigVersion(tx, caller.orgId);
  return { from, to: version, moved: true };
}

/** The label move of PUT /v1/prompts/{name}/labels/{label}, in its own transaction. */
export async function setLabel(
  db: Database,
  caller: Caller,
  name: string,
  label: string,
  version: number,
): Promise<PromptView> {
  return await db.transaction(async (tx) => {
    await moveLabel(tx, caller, name, label, version);
    return getPrompt(tx, caller.orgId, name);
  });
}
