import { inArray } from 'drizzle-orm';
import type { Database } from '../../../db/connect.ts';
import { users } from '../../../db/schema.ts';

/** How the audit log names an actor, shortened to one string: name, else email, else id. */
export async function actorNames(
  db: Pick<Database, 'select'>,
  ids: ReadonlyArray<string | null>,
): Promise<Map<string, string>> {
  const wanted = [...new Set(ids.filter((id): id is string => id !== null))];
  if (wanted.length === 0) return new Map();
  const found = await db
    .select({ id: users.id, name: users.name, email: users.email })
    .from(users)
    .where(inArray(users.id, wanted));
  return new Map(found.map((u) => [u.id, u.name ?? u.email ?? u.id]));
}
