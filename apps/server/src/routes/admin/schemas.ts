/** Schemas that more than one platform-owner route uses. */
import { Type } from 'typebox';
import { PLANS } from '../../domain/plans.ts';
import { PlanName, PlanSourceName } from '../dashboard/schemas.ts';
import { UsageSchema } from '../dashboard/usage.ts';

export const OrgSummarySchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  external_id: Type.String({ description: "The identity provider's organization id" }),
  name: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String({ format: 'date-time' }),
  plan: Type.Enum(PLANS, { description: 'The plan in effect' }),
  plan_source: PlanSourceName,
  override: Type.Union([PlanName, Type.Null()], {
    description: 'The plan a platform owner pinned (PUT …/plan-override), else null',
  }),
  member_count: Type.Integer(),
  experiment_count: Type.Integer(),
  usage: UsageSchema,
});
