import { eq, sql } from 'drizzle-orm';
import type { Transaction } from '../../db/connect.ts';
import { experiments, experimentVersions } from '../../db/schema.ts';
import { bumpConfigVersion } from '../config-version.ts';
import { loadCurrentVersion } from '../experiments/current-version.ts';

/**
 * Mints the experiment's next version with `coverage` (stored as absent at 1, as a PUT stores
 * it) and nothing else changed, and moves the org's config version so clients refetch. The
 * bucket map and layer ranges are the current version's: no user changes arm. Returns the new
 * version's number, or null when the coverage already is that (nothing is written).
 */
export async function mintCoverage(
  tx: Transaction,
  experimentId: string,
  coverage: number,
  actorUserId: string | null,
): Promise<number | null> {
  const [current] = await loadCurrentVersion(tx, eq(experiments.id, experimentId));
  if (current === undefined) return null;
  const { row, version } = current;
  if ((version.config.coverage ?? 1) === coverage) return null;
  const { coverage: _, ...rest } = version.config;
  const next = version.version + 1;
  await tx.insert(experimentVersions).values({
    experimentId,
    version: next,
    config: coverage === 1 ? rest : { ...rest, coverage },
    bucketMap: version.bucketMap,
    layerRanges: version.layerRanges,
    createdBy: actorUserId,
  });
  await tx
    .update(experiments)
    .set({ currentVersion: next, updatedAt: sql`now()` })
    .where(eq(experiments.id, experimentId));
  await bumpConfigVersion(tx, row.orgId);
  return next;
}
