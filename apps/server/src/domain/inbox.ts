import { sql } from 'drizzle-orm';
import { type Database, rows } from '../db/connect.ts';
import type { ContactKind } from './contact.ts';
import { DomainError } from './outcomes.ts';

/**
 * The platform owners' inbox: contact messages and every org's feedback in one list, newest
 * first, read a page at a time. A page ends with a cursor (the last item's exact instant and
 * id), so paging stays stable while new messages arrive.
 */
interface InboxRow {
  source: 'contact' | 'feedback';
  id: string;
  created_at: Date | string;
  at_text: string;
  message: string;
  name: string | null;
  email: string | null;
  company: string | null;
  kind: string | null;
  mail_status: string | null;
  org_id: string | null;
  org_external_id: string | null;
  org_name: string | null;
  category: string | null;
  page: string | null;
  user_id: string | null;
  user_email: string | null;
  user_name: string | null;
}

const CURSOR = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z)~([0-9a-f-]{36})$/;

function cursorOf(row: InboxRow): string {
  return `${row.at_text}~${row.id}`;
}

function parseCursor(cursor: string): { at: string; id: string } {
  const match = CURSOR.exec(cursor);
  if (match === null || Number.isNaN(Date.parse(match[1] as string)))
    throw new DomainError('cursor-invalid', `"${cursor}" is not a cursor this inbox gave out`);
  return { at: match[1] as string, id: match[2] as string };
}

const AT_TEXT = `'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'`;

function inboxQuery(after: { at: string; id: string } | null, limit: number) {
  const where =
    after === null ? sql`` : sql`where (created_at, id) < (${after.at}::timestamptz, ${after.id})`;
  return sql`
    select * from (
      select 'contact' as source, c.id::text as id, c.created_at,
             to_char(c.created_at at time zone 'UTC', ${sql.raw(AT_TEXT)}) as at_text,
             c.message, c.name, c.email, c.company, c.kind, c.mail_status,
             null::text as org_id, null::text as org_external_id, null::text as org_name,
             null::text as category, null::text as page,
             null::text as user_id, null::text as user_email, null::text as user_name
      from contact_messages c
      union all
      select 'feedback', f.id::text, f.created_at,
             to_char(f.created_at at time zone 'UTC', ${sql.raw(AT_TEXT)}),
             f.message, null, null, null, null, null,
             o.id::text, o.external_id, o.name, f.category, f.page,
             u.id::text, u.email, u.name
      from feedback f join orgs o on o.id = f.org_id left join users u on u.id = f.user_id
    ) inbox
    ${where}
    order by created_at desc, id desc
    limit ${limit}`;
}

function present(row: InboxRow) {
  const common = {
    id: row.id,
    created_at: new Date(row.created_at).toISOString(),
    message: row.message,
  };
  if (row.source === 'contact')
    return {
      source: 'contact' as const,
      ...common,
      name: row.name as string,
      email: row.email as string,
      company: row.company,
      kind: row.kind as ContactKind,
      mail_status: row.mail_status as string,
    };
  return {
    source: 'feedback' as const,
    ...common,
    category: row.category as string,
    page: row.page,
    org: {
      id: row.org_id as string,
      external_id: row.org_external_id as string,
      name: row.org_name,
    },
    user:
      row.user_id === null ? null : { id: row.user_id, email: row.user_email, name: row.user_name },
  };
}

export async function readInbox(db: Database, options: { limit: number; cursor?: string }) {
  const after = options.cursor === undefined ? null : parseCursor(options.cursor);
  const found = await rows<InboxRow>(db, inboxQuery(after, options.limit + 1));
  const page = found.slice(0, options.limit);
  const last = page[page.length - 1];
  return {
    items: page.map(present),
    next_cursor: found.length > options.limit && last !== undefined ? cursorOf(last) : null,
  };
}
