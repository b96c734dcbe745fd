import type { CopyStore } from './copy-store.ts';
import type { AcceptedEvent } from './event-schema.ts';

interface Waiting {
  month: string;
  meterShard: number | null;
  events: readonly AcceptedEvent[];
  keyHashes: readonly string[];
  settle: (stored: Promise<boolean>) => void;
}

interface Lane {
  writing: number;
  waiting: Waiting[];
}

/**
 * One org's concurrent first deliveries written together ("Group commit of one org's
 * deliveries", docs/decisions/ingest.md#the-event-log-and-the-fold). While `perOrg` writes of an org
 * are under way, its next requests wait, and the next write takes them all (up to `maxEvents`)
 * in one COPY, one meter update and one commit: the database's cost per write is then shared.
 * Only one org's requests ever share a write, so another org's lock wait, failed row or retry
 * never holds or re-writes this org's events. A group that meets an event stored before writes
 * nothing and answers false to every request in it: each then takes the statement path, which
 * de-duplicates, as a lone request would. So does a group one of whose keys is no longer
 * active: each request's key is then checked alone, and only its own requests are refused.
 */
export class CopyGroups implements CopyStore {
  private readonly lanes = new Map<string, Lane>();

  constructor(
    private readonly copy: CopyStore,
    private readonly perOrg = 2,
    private readonly maxEvents = 1000,
  ) {}

  store(
    orgId: string,
    month: string,
    meterShard: number | null,
    events: readonly AcceptedEvent[],
    keyHashes: readonly string[] = [],
  ): Promise<boolean> {
    let lane = this.lanes.get(orgId);
    if (lane === undefined) {
      lane = { writing: 0, waiting: [] };
      this.lanes.set(orgId, lane);
    }
    const stored = new Promise<boolean>((resolve) => {
      lane.waiting.push({ month, meterShard, events, keyHashes, settle: resolve });
    });
    if (lane.writing < this.perOrg) this.writeNext(orgId, lane);
    return stored;
  }

  /** Writes the waiting requests of one month from the front, up to `maxEvents` (one at least). */
  private writeNext(orgId: string, lane: Lane): void {
    const first = lane.waiting[0];
    if (first === undefined) {
      if (lane.writing === 0) this.lanes.delete(orgId);
      return;
    }
    const group: Waiting[] = [];
    const rest: Waiting[] = [];
    let size = 0;
    let full = false;
    for (const request of lane.waiting) {
      const fits = group.length === 0 || size + request.events.length <= this.maxEvents;
      if (request.month === first.month && !full && fits) {
        group.push(request);
        size += request.events.length;
      } else {
        // the first of its month that does not fit closes the group: no later one overtakes it
        if (request.month === first.month) full = true;
        rest.push(request);
      }
    }
    lane.waiting = rest;
    const events = group.length === 1 ? first.events : group.flatMap((request) => request.events);
    lane.writing++;
    const keyHashes =
      group.length === 1 ? first.keyHashes : [...new Set(group.flatMap((r) => r.keyHashes))];
    const written = this.copy.store(orgId, first.month, first.meterShard, events, keyHashes);
    for (const request of group) request.settle(written);
    const next = () => {
      lane.writing--;
      this.writeNext(orgId, lane);
    };
    written.then(next, next);
  }
}
