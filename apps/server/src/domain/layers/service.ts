import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { Database, Transaction } from '../../db/connect.ts';
import { experiments, type LayerRun, layers } from '../../db/schema.ts';
import { recordAudit } from '../audit.ts';
import type { Caller } from '../identity/identity.ts';
import { DomainError } from '../outcomes.ts';
import {
  checkNameNotUuid,
  createVersioned,
  tableRows,
  type VersionedConfig,
  versionedReads,
} from '../versioned-config.ts';
import { layerBucketsFor, neverUsed, ownedRanges, resizeOwner } from './layer-map.ts';
import type { Layer, LayerInput } from './layer-schema.ts';

type Row = typeof layers.$inferSelect;

async function present(db: Pick<Database, 'select'>, row: Row): Promise<Layer> {
  const ids = [...new Set(row.runs.map((r) => r.experiment_id))];
  const names = new Map(
    ids.length === 0
      ? []
      : (
          await db
            .select({ id: experiments.id, name: experiments.name })
            .from(experiments)
            .where(inArray(experiments.id, ids))
        ).map((e) => [e.id, e.name]),
  );
  return {
    id: row.id,
    name: row.name,
    ...(row.description === null ? {} : { description: row.description }),
    salt: row.salt,
    bucket_count: row.bucketCount,
    bucket_map: [...row.runs]
      .sort((a, b) => a.start - b.start)
      .map((r) => ({
        experiment_id: r.experiment_id,
        experiment: names.get(r.experiment_id) ?? r.experiment_id,
        start: r.start,
        end: r.end,
        retired: r.retired === true,
      })),
    free_buckets: neverUsed(row.runs, row.bucketCount).reduce((n, r) => n + r.end - r.start, 0),
    version: row.version,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** Layers as versioned config: addressed by id or name, listed by name. */
const LAYERS: VersionedConfig<Row, Layer> = {
  target: 'layer',
  noun: 'layer',
  nameField: 'name',
  notFoundCode: 'layer-not-found',
  ...tableRows(layers, layers, [asc(layers.name)]),
  version: (row) => row.version,
  present,
};

export async function createLayer(db: Database, caller: Caller, input: LayerInput): Promise<Layer> {
  checkNameNotUuid(LAYERS, input.name, 'layers are addressed by name or id');
  return await createVersioned(db, caller, LAYERS, async (tx) => {
    const [row] = await tx
      .insert(layers)
      .values({
        orgId: caller.orgId,
        name: input.name,
        description: input.description ?? null,
        salt: input.salt,
        bucketCount: input.bucket_count,
        runs: [],
        version: 1,
      })
      .onConflictDoNothing({ target: [layers.orgId, layers.name] })
      .returning();
    if (row === undefined)
      throw new DomainError(
        'layer-name-taken',
        `A layer named "${input.name}" exists in your org`,
        {
          errors: [{ pointer: '#/name', detail: 'is already used in this org' }],
        },
      );
    return { row, details: { name: row.name, salt: row.salt, bucket_count: row.bucketCount } };
  });
}

/** The org's layers by id or name, and all of them in list order. */
export const { get: getLayer, list: listLayers } = versionedReads(LAYERS);

/**
 * Gives the experiment ⌊bucket_count × layer_weight ÷ 100⌋ of the layer's buckets, with the
 * layer row locked, and returns the runs it owns now (docs/decisions/targeting.md#layers). Refused when
 * the layer is unknown (a pointer at #/layer) or has too few never-used buckets.
 */
export async function claimLayerBuckets(
  tx: Transaction,
  caller: Caller,
  experimentId: string,
  layerName: string,
  layerWeight: number,
): Promise<Array<{ start: number; end: number }>> {
  const [row] = await tx
    .select()
    .from(layers)
    .where(and(eq(layers.orgId, caller.orgId), eq(layers.name, layerName)))
    .for('update');
  if (row === undefined)
    throw new DomainError(
      'config-invalid',
      `1 invalid field in the body; first: #/layer no layer is named "${layerName}"`,
      { errors: [{ pointer: '#/layer', detail: `no layer is named "${layerName}"` }] },
    );
  const target = layerBucketsFor(row.bucketCount, layerWeight);
  const outcome = resizeOwner(row.runs, row.bucketCount, experimentId, target);
  if (!outcome.ok)
    throw new DomainError(
      'layer-full',
      `layer_weight ${layerWeight} needs ${outcome.needed} more of layer ${row.name}'s buckets but only ${outcome.free} of ${row.bucketCount} were never used; a bucket once owned is never handed to another experiment`,
      {
        needed_buckets: outcome.needed,
        free_buckets: outcome.free,
        errors: [
          {
            pointer: '#/layer_weight',
            detail: `needs ${outcome.needed} never-used buckets of layer ${row.name}; ${outcome.free} remain (at most ${Math.floor((outcome.free * 10_000) / row.bucketCount) / 100} % more)`,
          },
        ],
      },
    );
  const after = ownedRanges(outcome.runs, experimentId);
  if (JSON.stringify(row.runs) !== JSON.stringify(outcome.runs)) {
    await tx
      .update(layers)
      .set({ runs: outcome.runs as LayerRun[], version: row.version + 1, updatedAt: sql`now()` })
      .where(eq(layers.id, row.id));
    await recordAudit(tx, {
      orgId: caller.orgId,
      actorUserId: caller.userId,
      action: 'layer.buckets_changed',
      targetType: 'layer',
      targetId: row.id,
      details: { experiment_id: experimentId, layer_weight: layerWeight, ranges: after },
    });
  }
  return after;
}
