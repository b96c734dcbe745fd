import { type SQL, sql } from 'drizzle-orm';
import type { MetricDefinition } from '../../schemas/experiment-config.ts';
import type { ValueScope } from '../reads/value-scope.ts';
import { dailyRows } from './window-relations.ts';

/**
 * CUPED's covariate per user, `(user_id, x)`: the same metric's per-user value over the
 * `days` UTC days before the user's first exposure to this experiment (exposure days up to
 * the window's end; history imported for days before the experiment existed counts). Business
 * metrics read every stored outcome of that name for the user in those days under this
 * experiment and, when `shared_org_wide`, under the org's other experiments too (the scope's
 * `orgExperimentIds`: the list, not a join, as shards hold no `experiments`); model-call
 * metrics read this experiment's stats. x is null for a user without pre-period data (the
 * run imputes 0 and reports the coverage). Reads the first exposures from the CTE `fe`.
 */
export function covariateOf(scope: ValueScope, metric: MetricDefinition, days: number): SQL {
  const inPrePeriod = (table: string) =>
    sql`${sql.raw(table)}.user_id = f.user_id and ${sql.raw(table)}.day >= f.first_day - ${days}::int
      and ${sql.raw(table)}.day < f.first_day`;
  switch (metric.kind) {
    case 'revenue':
    case 'value': {
      const x = metric.kind === 'revenue' ? sql`sum(p.sum)` : sql`sum(p.sum) / nullif(sum(p.n), 0)`;
      const experimentsRead = metric.shared_org_wide
        ? sql`p.experiment_id in (select value::uuid from json_array_elements_text(${JSON.stringify(orgExperiments(scope, metric))}::json))`
        : sql`p.experiment_id = ${scope.experimentId}::uuid`;
      return sql`select f.user_id, (${x})::float8 as x
        from fe f join user_day_business p on ${inPrePeriod('p')}
        where p.metric = ${metric.name} and ${experimentsRead}
        group by f.user_id`;
    }
    default: {
      const x = statsCovariate(metric.kind);
      return sql`select f.user_id, (${x})::float8 as x
        from fe f join user_day_stats p on ${inPrePeriod('p')}
        where p.experiment_id = ${scope.experimentId}::uuid
        group by f.user_id`;
    }
  }
}

/** The org's experiments an org-wide covariate reads under; a scope without them is refused. */
function orgExperiments(scope: ValueScope, metric: MetricDefinition): readonly string[] {
  if (scope.orgExperimentIds === undefined)
    throw new Error(
      `metric ${metric.name}: an org-wide covariate needs the org's experiments from the control database`,
    );
  return scope.orgExperimentIds;
}

/** Each user's first exposure day in this experiment (up to the window's end): the CTE `fe`. */
export function firstExposures(scope: ValueScope): SQL {
  return sql`select user_id, min(day) as first_day from ${dailyRows(scope, 'user_day_stats')}
    where experiment_id = ${scope.experimentId}::uuid and exposures > 0 and day <= ${scope.window.to}::date
    group by user_id`;
}

/** The model-call kinds' per-user value over pre-period rows, as in the window. */
function statsCovariate(kind: string): SQL {
  switch (kind) {
    case 'latency':
      return sql`sum(p.latency_sum) / nullif(sum(p.latency_n), 0)`;
    case 'tokens':
      return sql`sum(p.tokens_sum) / nullif(sum(p.tokens_n), 0)`;
    default:
      return sql`case when sum(p.exposures) > 0 or sum(p.calls) > 0 then sum(p.cost_sum) end`;
  }
}
