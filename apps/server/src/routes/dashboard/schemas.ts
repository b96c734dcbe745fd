/** Schemas that more than one dashboard route uses. */
import { Type } from 'typebox';
import { KEY_SCOPES } from '../../domain/keys.ts';
import { PLANS } from '../../domain/plans/plans.ts';

export const Scope = Type.Enum(KEY_SCOPES);
export const PlanName = Type.Enum(PLANS);
export const PlanSourceName = Type.Enum(['override', 'billing', 'free'], {
  description:
    "override: pinned by a platform owner; billing: the subscription's plan; free: neither",
});
export const ApiKeySchema = Type.Object({
  scope: Scope,
  key: Type.String({ description: 'The raw key; svc_pk_ (publishable) or svc_sk_ (secret)' }),
  created_at: Type.String({ format: 'date-time' }),
});

export const FeedbackSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  category: Type.String(),
  message: Type.String(),
  page: Type.Union([Type.String(), Type.Null()]),
  user_id: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String({ format: 'date-time' }),
});

/**
 * `?dimension=`: a breakdown the experiment declares. Any text up to a dimension's length: a
 * name the experiment does not declare is a `dimension-unknown` problem naming the declared ones.
 */
export const DimensionParam = Type.String({
  minLength: 1,
  maxLength: 137,
  description:
    'A dimension the experiment declares (model or metadata.<key>): its slices, exploratory, as breakdown',
});
