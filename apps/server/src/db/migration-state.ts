import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import { type Database, rows, toNumber } from './connect.ts';
import { INVALID_SCHEMA_NAME, sqlStateOf, UNDEFINED_TABLE } from './pg-error-codes.ts';

const JOURNAL = fileURLToPath(new URL('./migrations/meta/_journal.json', import.meta.url));

/** PostgreSQL's undefined_table and invalid_schema_name: no migration was ever applied. */
const NOTHING_MIGRATED = new Set([UNDEFINED_TABLE, INVALID_SCHEMA_NAME]);

let known: { when: number; tag: string } | null = null;

/** The newest migration this build ships (the journal is read once). */
function latestKnown(): { when: number; tag: string } {
  if (known === null) {
    const journal = JSON.parse(readFileSync(JOURNAL, 'utf8')) as {
      entries: Array<{ when: number; tag: string }>;
    };
    const last = journal.entries.at(-1);
    if (!last) throw new Error(`no migration in ${JOURNAL}`);
    known = { when: last.when, tag: last.tag };
  }
  return known;
}

export type MigrationState =
  | { current: true }
  | { current: false; missing: string; nothingApplied: boolean };

/**
 * Whether the database holds every migration this build ships, by the migrator's own rule (a
 * migration is applied when the newest recorded one is at least as recent). A database ahead
 * of this build (a newer process migrated it during a rolling upgrade) counts as current.
 * Throws when the database does not answer.
 */
export async function migrationState(db: Database): Promise<MigrationState> {
  const latest = latestKnown();
  try {
    const [row] = await rows<{ newest: unknown }>(
      db,
      sql`select max(created_at) as newest from drizzle.__drizzle_migrations`,
    );
    const newest = row?.newest == null ? null : toNumber(row.newest);
    if (newest !== null && newest >= latest.when) return { current: true };
    return { current: false, missing: latest.tag, nothingApplied: newest === null };
  } catch (error) {
    if (NOTHING_MIGRATED.has(sqlStateOf(error) ?? ''))
      return { current: false, missing: latest.tag, nothingApplied: true };
    throw error;
  }
}
