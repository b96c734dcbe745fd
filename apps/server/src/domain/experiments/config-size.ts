import { and, eq, ne, sql } from 'drizzle-orm';
import type { Transaction } from '../../db/connect.ts';
import { experiments, experimentVersions, orgs } from '../../db/schema.ts';
import type { ExperimentConfig } from '../../schemas/experiment-config.ts';
import { DomainError } from '../outcomes.ts';
import { currentVersionOf } from './current-version.ts';

/** ARBITER_MAX_CONFIG_BYTES and ARBITER_MAX_ORG_CONFIG_BYTES. */
export interface ConfigSizeLimits {
  maxConfigBytes: number;
  maxOrgConfigBytes: number;
}

/** The settings' defaults, for callers outside a server (benchmarks, scripts). */
export const DEFAULT_CONFIG_SIZE_LIMITS: ConfigSizeLimits = {
  maxConfigBytes: 1024 * 1024,
  maxOrgConfigBytes: 16 * 1024 * 1024,
};

/**
 * Refuses a config larger than its bound, or one that would take the org's current configs
 * (what /v1/config serves) past theirs. Sizes are of the stored JSON. The org row is locked
 * first, so two concurrent writes cannot both fit under the total.
 */
export async function checkConfigSize(
  tx: Transaction,
  orgId: string,
  experimentId: string | null,
  config: ExperimentConfig,
  limits: ConfigSizeLimits,
): Promise<void> {
  const bytes = Buffer.byteLength(JSON.stringify(config));
  if (bytes > limits.maxConfigBytes) {
    throw new DomainError(
      'config-too-large',
      `This config is ${bytes} bytes of JSON; an experiment config may be at most ${limits.maxConfigBytes}`,
      { size_bytes: bytes, limit_bytes: limits.maxConfigBytes },
    );
  }
  await tx.select({ id: orgs.id }).from(orgs).where(eq(orgs.id, orgId)).for('update');
  const [others] = await tx
    .select({
      bytes:
        sql<number>`coalesce(sum(octet_length(${experimentVersions.config}::text)), 0)`.mapWith(
          Number,
        ),
    })
    .from(experiments)
    .innerJoin(experimentVersions, currentVersionOf)
    .where(
      and(
        eq(experiments.orgId, orgId),
        experimentId === null ? undefined : ne(experiments.id, experimentId),
      ),
    );
  const total = (others?.bytes ?? 0) + bytes;
  if (total > limits.maxOrgConfigBytes) {
    throw new DomainError(
      'org-config-too-large',
      `Your org's experiment configs would total ${total} bytes of JSON with this one; an org may serve at most ${limits.maxOrgConfigBytes}`,
      { size_bytes: total, limit_bytes: limits.maxOrgConfigBytes },
    );
  }
}
