import { and, asc, count, eq, isNull, or, type SQL } from 'drizzle-orm';
import type { Database } from '../db/connect.ts';
import { experiments, memberships, orgs, users } from '../db/schema.ts';
import { UUID } from '../schemas/uuid.ts';
import { usageSummary } from './billing/usage.ts';
import { DomainError } from './outcomes.ts';
import { effectivePlan } from './plans/effective-plan.ts';

type OrgRow = typeof orgs.$inferSelect;

interface SummaryOptions {
  now: Date;
  enforced: boolean;
  memberCount: number;
  experimentCount: number;
}

/** One org as the platform owner sees it: who it is, its plan (and where it comes from) and this month's usage. */
async function summarize(db: Database, org: OrgRow, options: SummaryOptions) {
  const plan = await effectivePlan(db, org.id, options.now);
  const subscription = plan.subscription;
  return {
    id: org.id,
    external_id: org.externalId,
    name: org.name,
    created_at: org.createdAt.toISOString(),
    plan: plan.plan,
    plan_source: plan.source,
    override: plan.override,
    subscription:
      subscription === null
        ? null
        : {
            id: subscription.subscriptionId,
            plan: subscription.plan,
            status: subscription.status,
            current_period_end: subscription.currentPeriodEnd?.toISOString() ?? null,
            cancel_at_period_end: subscription.cancelAtPeriodEnd,
          },
    member_count: options.memberCount,
    experiment_count: options.experimentCount,
    usage: await usageSummary(db, org.id, options.now, options.enforced),
  };
}

async function countsBy(
  db: Database,
  table: typeof memberships | typeof experiments,
  where?: SQL,
): Promise<Map<string, number>> {
  const found = await db
    .select({ orgId: table.orgId, n: count() })
    .from(table)
    .where(where)
    .groupBy(table.orgId);
  return new Map(found.map((r) => [r.orgId, Number(r.n)]));
}

/** Every org, oldest first, with plan and usage. */
export async function listOrgSummaries(db: Database, now: Date, enforced: boolean) {
  const all = await db.select().from(orgs).orderBy(asc(orgs.createdAt), asc(orgs.id));
  // A membership deleted at the identity provider stays as a tombstone: it is no member.
  const members = await countsBy(db, memberships, isNull(memberships.deletedAt));
  // A holdout's experiment row is no experiment of the org (docs/decisions/targeting.md#holdouts).
  const experimentCounts = await countsBy(db, experiments, eq(experiments.kind, 'experiment'));
  const summaries = [];
  for (const org of all)
    summaries.push(
      await summarize(db, org, {
        now,
        enforced,
        memberCount: members.get(org.id) ?? 0,
        experimentCount: experimentCounts.get(org.id) ?? 0,
      }),
    );
  return summaries;
}

async function findOrg(db: Database, idOrExternalId: string): Promise<OrgRow> {
  const [org] = await db
    .select()
    .from(orgs)
    .where(
      UUID.test(idOrExternalId)
        ? or(eq(orgs.id, idOrExternalId), eq(orgs.externalId, idOrExternalId))
        : eq(orgs.externalId, idOrExternalId),
    )
    .limit(1);
  if (org === undefined)
    throw new DomainError('org-not-found', `No organization has the id "${idOrExternalId}"`);
  return org;
}

/** One org (by internal id or the identity provider's id): plan, usage and members with roles. */
export async function orgDetail(
  db: Database,
  idOrExternalId: string,
  now: Date,
  enforced: boolean,
) {
  const org = await findOrg(db, idOrExternalId);
  const members = await db
    .select({
      userId: users.id,
      externalId: users.externalId,
      email: users.email,
      name: users.name,
      role: memberships.role,
      joinedAt: memberships.createdAt,
    })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(
      and(eq(memberships.orgId, org.id), isNull(memberships.deletedAt), isNull(users.deletedAt)),
    )
    .orderBy(asc(memberships.createdAt), asc(users.id));
  const [experimentCount] = await db
    .select({ n: count() })
    .from(experiments)
    .where(and(eq(experiments.orgId, org.id), eq(experiments.kind, 'experiment')));
  const summary = await summarize(db, org, {
    now,
    enforced,
    memberCount: members.length,
    experimentCount: Number(experimentCount?.n ?? 0),
  });
  return {
    ...summary,
    members: members.map((m) => ({
      user_id: m.userId,
      external_id: m.externalId,
      email: m.email,
      name: m.name,
      role: m.role,
      joined_at: m.joinedAt.toISOString(),
    })),
  };
}
