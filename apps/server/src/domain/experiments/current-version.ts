import { and, eq } from 'drizzle-orm';
import { experiments, experimentVersions } from '../../db/schema.ts';

/** Join condition: an experiment with its latest version, the one every reader but the versions route wants. */
export const currentVersionOf = and(
  eq(experimentVersions.experimentId, experiments.id),
  eq(experimentVersions.version, experiments.currentVersion),
);
