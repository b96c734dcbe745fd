import { createHash } from 'node:crypto';
import { setPlanOverride } from '../../src/domain/plans/plan-override.ts';
import type { Plan } from '../../src/domain/plans/plans.ts';
import { experimentConfig, type Harness } from './harness.ts';

export const RUBRIC = 'Rate how helpful and correct the answer is.';

/** `rubric: null` leaves the rubric out. */
export const judgeMetric = (name = 'helpfulness', rubric: string | null = RUBRIC) => ({
  name,
  kind: 'judge',
  category: 'primary',
  method_default: 'welch_t',
  metric_version: 1,
  shared_org_wide: false,
  ...(rubric === null ? {} : { rubric }),
});

/** Puts the org on `plan` the way a platform owner does: a plan override. */
export async function setPlan(h: Harness, orgId: string, plan: Plan): Promise<void> {
  await setPlanOverride(h.ctx.db, orgId, plan, { userId: null }, h.ctx.clock.now());
  h.ctx.orgState.invalidate(orgId);
}

export async function createJudgeExperiment(h: Harness, admin: string, name: string) {
  const res = await h.call(admin, {
    method: 'POST',
    url: '/v1/experiments',
    payload: experimentConfig({ name, metrics: [judgeMetric()] }),
  });
  if (res.statusCode !== 201) throw new Error(`create ${name}: ${res.statusCode} ${res.body}`);
  return res.json().id as string;
}

/** A model call whose response names its event id and the quality the fake judge returns. */
export function modelCall(
  experimentId: string,
  eventId: string,
  user: string,
  variant: string,
  quality: number,
  timestamp: string,
) {
  return {
    event_id: eventId,
    type: 'model_call',
    experiment_id: experimentId,
    user_id: user,
    variant,
    timestamp,
    latency_ms: 300,
    prompt: `Question from ${user}`,
    response: `Answer id=${eventId} quality=${quality}`,
  };
}

/**
 * Through the real ingest path, then the fold worker folds them. The fixtures are days old,
 * which POST /v1/events refuses (clients replay within 24 h), so they arrive as an import.
 */
export async function ingest(h: Harness, secret: string, events: unknown[]): Promise<void> {
  const res = await h.ingest(secret, {
    method: 'POST',
    url: '/v1/events/import',
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify(events),
  });
  if (res.statusCode !== 200 || res.json().errors.length > 0)
    throw new Error(`ingest: ${res.statusCode} ${res.body}`);
  await h.ctx.worker.foldAll();
}

/** The order the job samples in, computed independently of the database. */
export function md5Order(ids: readonly string[]): string[] {
  const md5 = (s: string) => createHash('md5').update(s).digest('hex');
  return [...ids].sort((a, b) => md5(a).localeCompare(md5(b)) || a.localeCompare(b));
}

export function utcDay(daysAgo: number): string {
  return new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);
}

export async function judgeUsed(h: Harness, admin: string): Promise<number> {
  const res = await h.call(admin, { method: 'GET', url: '/v1/usage' });
  return res.json().judge_evaluations.used as number;
}
