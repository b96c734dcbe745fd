import { and, asc, eq, gt, sql } from 'drizzle-orm';
import type { Database } from '../db/connect.ts';
import { contactMessages } from '../db/schema.ts';
import { DomainError } from './outcomes.ts';

export const CONTACT_KINDS = ['sales', 'design_partner', 'other'] as const;
export type ContactKind = (typeof CONTACT_KINDS)[number];
const HOUR_MS = 3600_000;

export interface ContactInput {
  name: string;
  email: string;
  company?: string;
  message: string;
  kind?: ContactKind;
}

export type ContactMessage = typeof contactMessages.$inferSelect;

/**
 * Stores a contact message unless its sender's address already sent `perHour` in the last
 * hour. The count and the insert run under a lock on that address, so simultaneous messages
 * cannot slip past the cap together.
 */
export async function storeContactMessage(
  db: Database,
  input: ContactInput,
  options: { clientIp: string; now: Date; perHour: number; mailStatus: string },
): Promise<ContactMessage> {
  const { clientIp, now, perHour } = options;
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`contact:${clientIp}`}))`);
    const recent = await tx
      .select({ at: contactMessages.createdAt })
      .from(contactMessages)
      .where(
        and(
          eq(contactMessages.clientIp, clientIp),
          gt(contactMessages.createdAt, new Date(now.getTime() - HOUR_MS)),
        ),
      )
      .orderBy(asc(contactMessages.createdAt));
    if (recent.length >= perHour) throw contactLimit(recent, now, perHour);
    const [row] = await tx
      .insert(contactMessages)
      .values({
        name: input.name,
        email: input.email,
        company: input.company ?? null,
        kind: input.kind ?? 'other',
        message: input.message,
        clientIp,
        mailStatus: options.mailStatus,
        createdAt: now,
      })
      .returning();
    return row!;
  });
}

/** The cap's refusal: it lifts an hour after the oldest message that counts against it. */
function contactLimit(recent: Array<{ at: Date }>, now: Date, perHour: number): DomainError {
  const freesAt = (recent[recent.length - perHour] as { at: Date }).at.getTime() + HOUR_MS;
  return new DomainError(
    'contact-limit',
    `At most ${perHour} messages per hour from one address; the next one is possible at ${new Date(freesAt).toISOString()}`,
    {},
    Math.max(1, Math.ceil((freesAt - now.getTime()) / 1000)),
  );
}

/** Records what became of a message's notification mail. */
export async function markContactMail(
  db: Database,
  id: string,
  status: 'sent' | 'failed',
  error: string | null,
): Promise<void> {
  await db
    .update(contactMessages)
    .set({ mailStatus: status, mailError: error })
    .where(eq(contactMessages.id, id));
}
