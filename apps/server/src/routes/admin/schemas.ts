/** Schemas that more than one platform-owner route uses. */
import { Type } from 'typebox';
import { PlanName, PlanSourceName } from '../dashboard/schemas.ts';
import { UsageSchema } from '../dashboard/usage.ts';

const SubscriptionSchema = Type.Object(
  {
    id: Type.String(),
    plan: Type.Union([PlanName, Type.Null()], {
      description: 'null when its price is none of the configured plans',
    }),
    status: Type.String({ description: "The billing provider's subscription status" }),
    current_period_end: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    cancel_at_period_end: Type.Boolean(),
  },
  { description: 'The subscription that grants the plan, else the most recently changed one' },
);

export const OrgSummarySchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  external_id: Type.String({ description: "The identity provider's organization id" }),
  name: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String({ format: 'date-time' }),
  plan: PlanName,
  plan_source: PlanSourceName,
  override: Type.Union([PlanName, Type.Null()], {
    description: 'The plan a platform owner pinned',
  }),
  subscription: Type.Union([SubscriptionSchema, Type.Null()]),
  member_count: Type.Integer(),
  experiment_count: Type.Integer(),
  usage: UsageSchema,
});
