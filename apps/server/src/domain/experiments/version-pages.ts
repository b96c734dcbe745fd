import { and, asc, desc, eq, gt, inArray, lt, sql } from 'drizzle-orm';
import type { Database } from '../../db/connect.ts';
import { experiments, experimentVersions } from '../../db/schema.ts';
import { fitByteBudget } from '../../kernel/byte-budget.ts';
import { DomainError } from '../outcomes.ts';
import { addressed, type Experiment, notFound, present } from './service.ts';

export const VERSIONS_PAGE_DEFAULT = 20;
export const VERSIONS_PAGE_MAX = 100;
/**
 * A page stops before this many bytes of config, whatever its `limit`: a config may be up to
 * ARBITER_MAX_CONFIG_BYTES, and 100 of them in one answer would take the process's memory.
 * A single version larger than this still makes a page of one, so every version is readable.
 */
export const VERSIONS_PAGE_MAX_BYTES = 8 * 1024 * 1024;

/** Stripe's list cursors: version numbers, since a version is addressed by its number. */
export interface VersionPageRequest {
  limit: number;
  /** Versions older than this one (the next page). */
  startingAfter?: number;
  /** Versions newer than this one (the previous page). */
  endingBefore?: number;
}

export interface VersionPage {
  /** Newest first. */
  versions: Experiment[];
  /** More versions lie beyond this page in the direction asked (Stripe's `has_more`). */
  hasMore: boolean;
}

async function experimentRow(db: Database, orgId: string, idOrName: string) {
  const [row] = await db.select().from(experiments).where(addressed(orgId, idOrName));
  if (row === undefined) throw notFound(idOrName);
  return row;
}

/**
 * One page of an experiment's retained versions, newest first. The sizes are read first (one
 * small row per version of the page), then only the configs that fit, so neither the answer
 * nor the process ever holds more than the byte budget of configs.
 */
export async function listVersions(
  db: Database,
  orgId: string,
  idOrName: string,
  page: VersionPageRequest,
): Promise<VersionPage> {
  const row = await experimentRow(db, orgId, idOrName);
  const backwards = page.endingBefore !== undefined;
  const sizes = await db
    .select({
      version: experimentVersions.version,
      bytes: sql<number>`octet_length(${experimentVersions.config}::text)`.mapWith(Number),
    })
    .from(experimentVersions)
    .where(
      and(
        eq(experimentVersions.experimentId, row.id),
        page.startingAfter === undefined
          ? undefined
          : lt(experimentVersions.version, page.startingAfter),
        page.endingBefore === undefined
          ? undefined
          : gt(experimentVersions.version, page.endingBefore),
      ),
    )
    .orderBy(backwards ? asc(experimentVersions.version) : desc(experimentVersions.version))
    .limit(page.limit + 1);
  const taken = fitByteBudget(sizes, page.limit, VERSIONS_PAGE_MAX_BYTES).map((r) => r.version);
  const versions =
    taken.length === 0
      ? []
      : await db
          .select()
          .from(experimentVersions)
          .where(
            and(
              eq(experimentVersions.experimentId, row.id),
              inArray(experimentVersions.version, taken),
            ),
          )
          .orderBy(desc(experimentVersions.version));
  return { versions: versions.map((v) => present(row, v)), hasMore: sizes.length > taken.length };
}

/** One retained version by its number: any version stays readable, however many there are. */
export async function getVersion(
  db: Database,
  orgId: string,
  idOrName: string,
  version: number,
): Promise<Experiment> {
  const row = await experimentRow(db, orgId, idOrName);
  const [found] = await db
    .select()
    .from(experimentVersions)
    .where(
      and(eq(experimentVersions.experimentId, row.id), eq(experimentVersions.version, version)),
    );
  if (found === undefined) {
    throw new DomainError(
      'experiment-not-found',
      `Experiment "${idOrName}" has no version ${version} (its latest is ${row.currentVersion})`,
    );
  }
  return present(row, found);
}
