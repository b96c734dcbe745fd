import { type METHODS, methodRefusal } from '@arbiter/contract';
import { and, eq } from 'drizzle-orm';
import type { Database } from '../../db/connect.ts';
import { metricMethodOverrides } from '../../db/schema.ts';
import { recordAudit } from '../audit.ts';
import type { Caller } from '../identity/identity.ts';
import { DomainError } from '../outcomes.ts';
import { getExperiment } from './service.ts';

/**
 * Overrides the test of one metric of an experiment (null returns to its method_default),
 * audit-logged; the next analysis run uses it.
 */
export async function overrideMetricMethod(
  db: Database,
  caller: Caller,
  idOrName: string,
  metricName: string,
  method: (typeof METHODS)[number] | null,
  now: Date,
) {
  const experiment = await getExperiment(db, caller.orgId, idOrName);
  const metric = experiment.metrics.find((m) => m.name === metricName);
  if (!metric)
    throw new DomainError(
      'metric-not-found',
      `Experiment ${experiment.name} has no metric ${metricName}; its metrics: ${experiment.metrics.map((m) => m.name).join(', ') || 'none'}`,
      { metrics: experiment.metrics.map((m) => m.name) },
    );
  const refusal = method === null ? null : methodRefusal(metric, method);
  if (refusal !== null) {
    throw new DomainError('method-invalid', refusal, {
      errors: [{ pointer: '#/method', detail: refusal }],
    });
  }
  const where = and(
    eq(metricMethodOverrides.experimentId, experiment.id),
    eq(metricMethodOverrides.metric, metric.name),
  );
  await db.transaction(async (tx) => {
    if (method === null) await tx.delete(metricMethodOverrides).where(where);
    else
      await tx
        .insert(metricMethodOverrides)
        .values({ experimentId: experiment.id, metric: metric.name, method, setBy: caller.userId })
        .onConflictDoUpdate({
          target: [metricMethodOverrides.experimentId, metricMethodOverrides.metric],
          set: { method, setBy: caller.userId, setAt: now },
        });
    await recordAudit(tx, {
      orgId: caller.orgId,
      actorUserId: caller.userId,
      action: 'experiment.method_overridden',
      targetType: 'experiment',
      targetId: experiment.id,
      details: { metric: metric.name, method, method_default: metric.method_default },
    });
  });
  return {
    metric: metric.name,
    method: method ?? metric.method_default,
    overridden: method !== null,
  };
}
