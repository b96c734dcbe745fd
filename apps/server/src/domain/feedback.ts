import { desc, eq } from 'drizzle-orm';
import type { Database } from '../db/connect.ts';
import { feedback } from '../db/schema.ts';
import type { Caller } from './identity/identity.ts';

export const FEEDBACK_CATEGORIES = ['bug', 'idea', 'question', 'praise', 'other'] as const;

export interface FeedbackInput {
  message: string;
  category?: (typeof FEEDBACK_CATEGORIES)[number];
  page?: string;
}

function present(row: typeof feedback.$inferSelect) {
  return {
    id: row.id,
    category: row.category,
    message: row.message,
    page: row.page,
    user_id: row.userId,
    created_at: row.createdAt.toISOString(),
  };
}

export async function submitFeedback(db: Database, caller: Caller, input: FeedbackInput) {
  const [row] = await db
    .insert(feedback)
    .values({
      orgId: caller.orgId,
      userId: caller.userId,
      category: input.category ?? 'other',
      message: input.message,
      page: input.page ?? null,
    })
    .returning();
  return present(row!);
}

export async function listFeedback(db: Database, orgId: string) {
  const rows = await db
    .select()
    .from(feedback)
    .where(eq(feedback.orgId, orgId))
    .orderBy(desc(feedback.createdAt));
  return rows.map(present);
}
