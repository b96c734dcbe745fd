import { and, eq, type SQL } from 'drizzle-orm';
import type { Database } from '../../db/connect.ts';
import { experiments, experimentVersions } from '../../db/schema.ts';

/** An experiment with its latest version: what every reader but the versions list wants. */
export const currentVersionOf = and(
  eq(experimentVersions.experimentId, experiments.id),
  eq(experimentVersions.version, experiments.currentVersion),
);

/**
 * Experiments matching `where`, each with its current version: the one query for "load an
 * experiment with its current version". The caller may add an order.
 */
export function loadCurrentVersion(db: Database, where: SQL | undefined) {
  return db
    .select({ row: experiments, version: experimentVersions })
    .from(experiments)
    .innerJoin(experimentVersions, currentVersionOf)
    .where(where);
}
