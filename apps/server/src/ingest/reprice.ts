import { asc, eq, or } from 'drizzle-orm';
import { type Database, rows, toNumber } from '../db/connect.ts';
import { orgs } from '../db/schema.ts';
import { recordAudit } from '../domain/audit.ts';
import { costOf, PriceBook, ranked } from '../domain/model-prices/price-book.ts';
import { orgPriceRows } from '../domain/model-prices/price-cache.ts';
import { lockWatermark } from './fold-sql.ts';
import {
  applyRepricing,
  dropEmptiedCounts,
  type PricedCallRow,
  pricedCallsAfter,
  type Repriced,
  type RepriceWindow,
} from './reprice-sql.ts';

/** Calls per transaction: each batch holds its rows and the fold's lock only while it runs. */
export const REPRICE_BATCH = 500;

export interface RepriceOptions {
  /** One org, by its id or external id; null: every org. */
  org: string | null;
  /** UTC days, both included; null: unbounded. */
  from: string | null;
  to: string | null;
  dryRun: boolean;
  batch?: number;
}

export interface RepriceReport {
  orgs: number;
  /** Calls whose cost is the server's, in the window. */
  examined: number;
  /** Of them, those whose cost or row the current rows change. */
  repriced: number;
  /** Of those, the calls no row prices any more (left without a cost). */
  unpriced: number;
  /** What the changed costs add up to, new less old, in US dollars. */
  costDelta: number;
  dryRun: boolean;
}

/** The org named does not exist: said in one sentence, nothing changed. */
export class RepriceError extends Error {}

const DAY_MS = 86_400_000;

export function windowOf(options: Pick<RepriceOptions, 'from' | 'to'>): RepriceWindow {
  return {
    fromMs: options.from === null ? null : Date.parse(`${options.from}T00:00:00Z`),
    toMs: options.to === null ? null : Date.parse(`${options.to}T00:00:00Z`) + DAY_MS,
  };
}

const count = (value: number | null) => (value === null ? null : toNumber(value));

/** The call as acceptance would price it now: the same rows, the same arithmetic. */
function repriced(book: PriceBook, call: PricedCallRow): Repriced {
  const row = book.rowFor(call.model, toNumber(call.at_ms));
  if (row === null) return { event_id: call.event_id, cost: null, ref: null };
  const tokens = {
    input_tokens: count(call.input_tokens) ?? undefined,
    output_tokens: count(call.output_tokens) ?? undefined,
    cached_input_tokens: count(call.cached_input_tokens) ?? undefined,
    reasoning_tokens: count(call.reasoning_tokens) ?? undefined,
  };
  return { event_id: call.event_id, cost: costOf(row, tokens), ref: row.ref };
}

interface BatchOutcome {
  last: string | null;
  examined: number;
  changed: Repriced[];
  costDelta: number;
}

/** One batch of one org on one database, in its own transaction. */
async function repriceBatch(
  db: Database,
  orgId: string,
  book: PriceBook,
  after: string,
  options: RepriceOptions,
): Promise<BatchOutcome> {
  return db.transaction(async (tx) => {
    // The fold's lock first: no fold runs while the batch decides which calls are folded.
    if (!options.dryRun) await rows(tx, lockWatermark);
    const batch = options.batch ?? REPRICE_BATCH;
    const found = await rows<PricedCallRow>(
      tx,
      pricedCallsAfter(orgId, after, windowOf(options), batch, !options.dryRun),
    );
    const changed: Repriced[] = [];
    let costDelta = 0;
    for (const call of found) {
      const next = repriced(book, call);
      const old = call.cost_usd === null ? null : toNumber(call.cost_usd);
      if (next.cost === old && next.ref === call.priced_by) continue;
      changed.push(next);
      costDelta += (next.cost ?? 0) - (old ?? 0);
    }
    if (!options.dryRun && changed.length > 0) {
      await tx.execute(applyRepricing(orgId, changed));
      await tx.execute(
        dropEmptiedCounts(
          orgId,
          changed.map((c) => c.event_id),
        ),
      );
    }
    const last = found.length < batch ? null : (found.at(-1)?.event_id ?? null);
    return { last, examined: found.length, changed, costDelta };
  });
}

type Tally = Omit<RepriceReport, 'orgs' | 'dryRun'>;

/** Every batch of one org on one database. */
async function repriceOrgOn(
  db: Database,
  orgId: string,
  book: PriceBook,
  options: RepriceOptions,
  tally: Tally,
): Promise<void> {
  let after: string | null = '';
  while (after !== null) {
    const outcome: BatchOutcome = await repriceBatch(db, orgId, book, after, options);
    tally.examined += outcome.examined;
    tally.repriced += outcome.changed.length;
    tally.unpriced += outcome.changed.filter((c) => c.cost === null).length;
    tally.costDelta += outcome.costDelta;
    after = outcome.last;
  }
}

async function orgIdsOf(control: Database, org: string | null): Promise<string[]> {
  const uuid = org !== null && /^[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}$/i.test(org);
  const found = await control
    .select({ id: orgs.id })
    .from(orgs)
    .where(
      org === null
        ? undefined
        : uuid
          ? or(eq(orgs.id, org), eq(orgs.externalId, org))
          : eq(orgs.externalId, org),
    )
    .orderBy(asc(orgs.id));
  if (org !== null && found.length === 0) throw new RepriceError(`no org ${org}`);
  return found.map((o) => o.id);
}

/**
 * Re-prices the stored model calls whose cost is the server's (never a cost the caller sent)
 * under the current rows, on every database holding event data (`shards`: the one database, or
 * each shard), and moves the folded calls' costs in the daily aggregates, so an analysis after
 * it reads what one over calls priced so from the start would. Each org's run is audited in the
 * control database (`model_calls.repriced`); a dry run changes nothing and records nothing.
 */
export async function repriceCalls(
  control: Database,
  shards: readonly Database[],
  options: RepriceOptions,
): Promise<RepriceReport> {
  const ids = await orgIdsOf(control, options.org);
  const total: Tally = { examined: 0, repriced: 0, unpriced: 0, costDelta: 0 };
  for (const orgId of ids) {
    const book = new PriceBook((await orgPriceRows(control, orgId)).map((r) => ranked('org', r)));
    const tally: Tally = { examined: 0, repriced: 0, unpriced: 0, costDelta: 0 };
    for (const db of shards) await repriceOrgOn(db, orgId, book, options, tally);
    if (!options.dryRun)
      await recordAudit(control, {
        orgId,
        actorUserId: null,
        action: 'model_calls.repriced',
        targetType: 'model_calls',
        targetId: `${options.from ?? '*'}..${options.to ?? '*'}`,
        details: { from: options.from, to: options.to, ...tally },
      });
    for (const key of Object.keys(total) as (keyof Tally)[]) total[key] += tally[key];
  }
  return { orgs: ids.length, ...total, dryRun: options.dryRun };
}
