import { eq } from 'drizzle-orm';
import type { Database } from '../../db/connect.ts';
import { modelPrices } from '../../db/schema.ts';
import type { Clock } from '../../kernel/ports.ts';
import { PriceBook, type PriceRow, ranked } from './price-book.ts';

/** How long a process trusts its copy of an org's rows: another process's change shows within it. */
const REVALIDATE_MS = 1000;

/** An org's own rows, as the routes answer them and the price book reads them. */
export async function orgPriceRows(db: Database, orgId: string): Promise<PriceRow[]> {
  const rows = await db
    .select()
    .from(modelPrices)
    .where(eq(modelPrices.orgId, orgId))
    .orderBy(modelPrices.pattern, modelPrices.effectiveFrom);
  return rows.map((r) => ({
    pattern: r.pattern,
    effective_from: r.effectiveFrom,
    currency: 'USD',
    input_per_million: r.inputPerMillion,
    output_per_million: r.outputPerMillion,
    cached_input_per_million: r.cachedInputPerMillion,
    reasoning_per_million: r.reasoningPerMillion,
    source: r.source,
  }));
}

/**
 * Each org's price book for acceptance, read once a second at most: pricing a batch must not
 * cost a query per event. A change in this process drops the org's copy at once.
 */
export class ModelPriceCache {
  private readonly books = new Map<string, { book: PriceBook; readAt: number }>();

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {}

  async bookFor(orgId: string): Promise<PriceBook> {
    const now = this.clock.now().getTime();
    const held = this.books.get(orgId);
    if (held !== undefined && now - held.readAt < REVALIDATE_MS) return held.book;
    const rows = await orgPriceRows(this.db, orgId);
    const book = new PriceBook(rows.map((row) => ranked('org', row)));
    this.books.set(orgId, { book, readAt: now });
    return book;
  }

  invalidate(orgId: string): void {
    this.books.delete(orgId);
  }
}
