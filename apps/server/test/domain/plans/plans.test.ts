import { describe, expect, it } from 'vitest';
import { PLAN_LIMITS, PLANS, seatCap } from '../../../src/domain/plans/plans.ts';

describe('the plans table (docs/decisions/identity-and-billing.md#the-plans-table)', () => {
  it('holds the seat caps per plan: free 5, pro 100, business unlimited, enterprise by contract', () => {
    expect(PLANS.map((p) => [p, seatCap(p)])).toEqual([
      ['free', 5],
      ['pro', 100],
      ['business', null],
      ['enterprise', null],
    ]);
  });

  it('holds the allowances and retention the contract names', () => {
    expect(PLAN_LIMITS.free).toMatchObject({
      monthly_event_allowance: 50_000,
      monthly_judge_allowance: 0,
      bills_overage: false,
      retention_days: 7,
    });
    expect(PLAN_LIMITS.pro.monthly_judge_allowance).toBe(50_000);
    expect(PLAN_LIMITS.business).toMatchObject({
      monthly_judge_allowance: 500_000,
      retention_days: 90,
    });
  });
});
