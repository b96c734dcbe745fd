import { desc, eq } from 'drizzle-orm';
import { type Static, Type } from 'typebox';
import type { Database } from '../../db/connect.ts';
import { analysisRuns } from '../../db/schema.ts';

export const LastRunSchema = Type.Object(
  {
    label: Type.String({ description: 'The run’s label: its day (nightly) or its manual label' }),
    kind: Type.String({ description: 'nightly or manual' }),
    computed_at: Type.String({ format: 'date-time' }),
    status: Type.Enum(['computed', 'srm_halted', 'collecting'], {
      description:
        'collecting: the run found too few evaluated events and stored no results (the results route answers its collecting problem)',
    }),
  },
  { description: 'The latest analysis run of the experiment, whatever it found' },
);
export type LastRun = Static<typeof LastRunSchema>;

/**
 * Each experiment's latest run of any status, by experiment id. The results routes show only
 * runs with results; this says when a run last looked, also when it found the experiment
 * still collecting.
 */
export async function readLastRuns(db: Database, orgId: string): Promise<Map<string, LastRun>> {
  const runs = await db
    .selectDistinctOn([analysisRuns.experimentId], {
      experimentId: analysisRuns.experimentId,
      label: analysisRuns.label,
      kind: analysisRuns.kind,
      computedAt: analysisRuns.computedAt,
      hasResults: analysisRuns.hasResults,
      srm: analysisRuns.srm,
    })
    .from(analysisRuns)
    .where(eq(analysisRuns.orgId, orgId))
    .orderBy(analysisRuns.experimentId, desc(analysisRuns.computedAt));
  return new Map(
    runs.map((r) => [
      r.experimentId,
      {
        label: r.label,
        kind: r.kind,
        computed_at: r.computedAt.toISOString(),
        status: !r.hasResults ? 'collecting' : r.srm.halted ? 'srm_halted' : 'computed',
      },
    ]),
  );
}
