import type { Context } from '../context.ts';
import { monthResetsAt, usageMonth } from '../domain/billing/usage-month.ts';
import { isActiveFor } from '../domain/keys.ts';
import { needsPrice, priceCalls } from '../domain/model-prices/price-calls.ts';
import type { OrgState } from '../domain/org-state-cache.ts';
import { PLAN_LIMITS } from '../domain/plans/plans.ts';
import type { EventOutcome } from '../kernel/ports.ts';
import type { TimeSlice } from '../kernel/time-slice.ts';
import { EventIdClaims } from './event-id-claims.ts';
import { type AppendResult, InactiveKeyError } from './event-log.ts';
import type { AcceptedEvent } from './event-schema.ts';
import { offloadModelText } from './offload-text.ts';
import { checkEvent, type TimestampRule } from './validate-event.ts';

export interface Rejection {
  /** Index in the submitted batch (or 1-based line for imports, mapped by the caller). */
  index: number;
  detail: string;
}

export interface AcceptOutcome {
  /** Events acknowledged: newly appended plus identical retries of events already accepted. */
  accepted: number;
  /** Of those, events whose id was already stored (or repeated in the request): not stored again. */
  duplicates: number;
  /**
   * Events whose id is already stored with other content: not accepted, listed in `rejected`;
   * the stored event stands.
   */
  conflicts: number;
  rejected: Rejection[];
  configVersion: number;
  /** Valid events refused only because the monthly allowance is used up. */
  overAllowance: number;
  /** Accepted events dated before their experiment's analysis window (history only). */
  beforeWindow: number;
  allowance: number;
  resetsAt: Date;
  now: Date;
}

/** What acceptance reads: the time, the org's cached state, the limits switch, the log and the text store; what it counts in. */
export type AcceptDeps = Pick<
  Context,
  'clock' | 'orgState' | 'config' | 'eventLog' | 'metrics' | 'modelText' | 'apiKeys' | 'modelPrices'
>;

export interface AcceptOptions {
  /** Which timestamps are taken (see TimestampRule); `live` unless said. */
  timestamps?: TimestampRule;
  /** The ids the request used so far: an import passes one across its slices. */
  ids?: EventIdClaims;
  /** How an event is named in a rejection that points at another: "event 3", "line 7". */
  refOf?: (index: number) => string;
  /** Hands the event loop back between events once used up: an import checks many. */
  slice?: TimeSlice;
  /**
   * The SHA-256 of the sending API key when the route admitted it from the key cache: the
   * events are stored only while the key is active (`InactiveKeyError` otherwise).
   */
  keyHash?: string;
}

/**
 * The sending key for the log to check in its write, or undefined once checked here: by the
 * database before anything is stored, when the log cannot check it or model text goes to the
 * text store first (a key gone by then must not have stored anything there either).
 */
async function keyForTheWrite(
  ctx: AcceptDeps,
  orgId: string,
  keyHash: string | undefined,
): Promise<string | undefined> {
  if (keyHash === undefined) return undefined;
  if (ctx.eventLog.checksKeysInWrite === true && ctx.modelText === null) return keyHash;
  const key = await ctx.apiKeys.lookupHash(keyHash);
  if (!isActiveFor(key, orgId)) throw new InactiveKeyError();
  return undefined;
}

/** Of the events accepted (not refused), those dated before their experiment's window. */
function acceptedBeforeWindow(
  valid: readonly AcceptedEvent[],
  beforeWindow: ReadonlySet<string>,
  refusedIds: readonly string[],
): number {
  if (beforeWindow.size === 0) return 0;
  const refused = new Set(refusedIds);
  let count = 0;
  for (const event of valid)
    if (beforeWindow.has(event.event_id) && !refused.has(event.event_id)) count++;
  return count;
}

/** Each event checked on its own and against the ids claimed so far; nothing stored yet. */
async function checkEach(
  raw: readonly unknown[],
  state: OrgState,
  now: Date,
  options: AcceptOptions,
  textInStore: boolean,
) {
  const rule = options.timestamps ?? 'live';
  const ids = options.ids ?? new EventIdClaims();
  const refOf = options.refOf ?? ((i: number) => `event ${i}`);
  const nowText = now.toISOString();
  const rejected: Rejection[] = [];
  const valid: AcceptedEvent[] = [];
  const validIndex: number[] = [];
  const beforeWindow = new Set<string>();
  for (const [index, item] of raw.entries()) {
    if (options.slice?.due) await options.slice.pause();
    const check = checkEvent(item, state, now, nowText, rule, textInStore);
    if (!check.ok) {
      rejected.push({ index, detail: check.detail });
      continue;
    }
    const contradicted = ids.claim(check.event, refOf(index));
    if (contradicted !== null) {
      rejected.push({
        index,
        detail: `event_id: "${check.event.event_id}" is already used by ${contradicted} of this request, with different content`,
      });
      continue;
    }
    if (check.beforeWindow) beforeWindow.add(check.event.event_id);
    valid.push(check.event);
    validIndex.push(index);
  }
  return { rejected, valid, validIndex, beforeWindow };
}

/** The submitted item's `type` when it has one (the metrics bound it to the known types). */
function typeOf(item: unknown): string | null {
  const type = (item as { type?: unknown } | null)?.type;
  return typeof type === 'string' ? type : null;
}

/** Counts each event of the request once, by its type and what became of it. */
function countOutcomes(
  metrics: AcceptDeps['metrics'],
  raw: readonly unknown[],
  rejected: readonly Rejection[],
  valid: readonly AcceptedEvent[],
  result: AppendResult | null,
): void {
  const tally = new Map<string, { type: string | null; outcome: EventOutcome; count: number }>();
  const add = (type: string | null, outcome: EventOutcome) => {
    const key = `${outcome} ${type}`;
    const found = tally.get(key) ?? { type, outcome, count: 0 };
    found.count += 1;
    tally.set(key, found);
  };
  for (const r of rejected) add(typeOf(raw[r.index]), 'refused');
  const typeById = new Map(valid.map((e) => [e.event_id, e.type]));
  const conflicting = new Set(result?.conflicts);
  for (const id of result?.appended ?? []) add(typeById.get(id) ?? null, 'accepted');
  // A conflict is among the rejections already: counted there, as refused.
  for (const id of result?.duplicates ?? [])
    if (!conflicting.has(id)) add(typeById.get(id) ?? null, 'duplicate');
  for (const t of tally.values()) metrics.countEvents(t.type, t.outcome, t.count);
}

/**
 * Adds the valid events the log did not take to `rejected`, in request order: those over the
 * allowance, and those reusing a stored event id with other content (every copy in the
 * request). Returns how many conflicted.
 */
function rejectNotTaken(
  rejected: Rejection[],
  checked: { valid: readonly AcceptedEvent[]; validIndex: readonly number[] },
  result: AppendResult,
  overAllowance: string,
): number {
  const refused = new Set(result.refused);
  const conflicting = new Set(result.conflicts);
  let conflicts = 0;
  for (const [i, event] of checked.valid.entries()) {
    const index = checked.validIndex[i] as number;
    if (refused.has(event.event_id)) rejected.push({ index, detail: overAllowance });
    else if (conflicting.has(event.event_id)) {
      conflicts++;
      rejected.push({
        index,
        detail: `event_id: "${event.event_id}" is already stored with different content; the stored event stands`,
      });
    }
  }
  rejected.sort((a, b) => a.index - b.index);
  return conflicts;
}

/**
 * The events with each model call that sent tokens but no cost priced by the org's price book,
 * before the log has them: every log (one database, Kafka, shards) then stores the cost and the
 * row with the event.
 */
async function withPrices(
  ctx: Pick<AcceptDeps, 'modelPrices'>,
  orgId: string,
  events: AcceptedEvent[],
): Promise<AcceptedEvent[]> {
  if (!events.some(needsPrice)) return events;
  return priceCalls(await ctx.modelPrices.bookFor(orgId), events);
}

/**
 * The whole acceptance path of every ingest route: check each event on its own, then meter,
 * de-duplicate and append the valid ones to the event log in one step. Returns once they
 * survive a crash.
 */
export async function acceptEvents(
  ctx: AcceptDeps,
  orgId: string,
  raw: readonly unknown[],
  options: AcceptOptions = {},
): Promise<AcceptOutcome> {
  const now = ctx.clock.now();
  const state = await ctx.orgState.get(orgId);
  const limits = PLAN_LIMITS[state.plan];
  const checked = await checkEach(raw, state, now, options, ctx.modelText !== null);
  const { rejected, beforeWindow } = checked;
  const enforce = ctx.config.enforceLimits && !limits.bills_overage;
  const base = {
    configVersion: state.configVersion,
    allowance: limits.monthly_event_allowance,
    resetsAt: monthResetsAt(now),
    now,
  };
  if (checked.valid.length === 0) {
    countOutcomes(ctx.metrics, raw, rejected, checked.valid, null);
    return {
      ...base,
      accepted: 0,
      duplicates: 0,
      conflicts: 0,
      rejected,
      overAllowance: 0,
      beforeWindow: 0,
    };
  }
  const keyHash = await keyForTheWrite(ctx, orgId, options.keyHash);
  const priced = await withPrices(ctx, orgId, checked.valid);
  // The text is stored before the log has the event: a 202 never names text not stored.
  const valid =
    ctx.modelText === null ? priced : await offloadModelText(ctx.modelText, orgId, priced);
  const result = await ctx.eventLog.append({
    orgId,
    events: valid,
    month: usageMonth(now),
    allowance: enforce ? limits.monthly_event_allowance : null,
    usage: { allowance: limits.monthly_event_allowance, now },
    ...(keyHash === undefined ? {} : { keyHash }),
  });
  const refusal = `over the monthly allowance of ${limits.monthly_event_allowance} events on the ${state.plan} plan; it resets at ${base.resetsAt.toISOString()}`;
  const conflicts = rejectNotTaken(
    rejected,
    { valid, validIndex: checked.validIndex },
    result,
    refusal,
  );
  countOutcomes(ctx.metrics, raw, rejected, valid, result);
  const notTaken = [...result.refused, ...result.conflicts];
  return {
    ...base,
    ...counted(result, conflicts),
    rejected,
    beforeWindow: acceptedBeforeWindow(valid, beforeWindow, notTaken),
  };
}

/** The ack's counts: a conflicting copy is one of the log's duplicates, never acknowledged. */
function counted(
  result: AppendResult,
  conflicts: number,
): Pick<AcceptOutcome, 'accepted' | 'duplicates' | 'conflicts' | 'overAllowance'> {
  const duplicates = result.duplicates.length - conflicts;
  return {
    accepted: result.appended.length + duplicates,
    duplicates,
    conflicts,
    overAllowance: result.refused.length,
  };
}
