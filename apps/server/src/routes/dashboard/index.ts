import type { Context } from '../../context.ts';
import type { Plane } from '../../http/app-types.ts';
import { registerRoutes } from '../../http/register-routes.ts';
import { type SessionDeps, useSession } from '../../http/session-auth.ts';
import type { AcceptDeps } from '../../ingest/accept.ts';
import * as analyze from './analyze.ts';
import * as audit from './audit.ts';
import * as billingSummary from './billing-summary.ts';
import * as checkoutSession from './checkout-session.ts';
import * as createExperiment from './create-experiment.ts';
import * as createHoldout from './create-holdout.ts';
import * as createLayer from './create-layer.ts';
import * as createSavedGroup from './create-saved-group.ts';
import * as experimentTransitions from './experiment-transitions.ts';
import * as getExperiment from './get-experiment.ts';
import * as getExperimentVersion from './get-experiment-version.ts';
import * as getHoldout from './get-holdout.ts';
import * as getLayer from './get-layer.ts';
import * as getSavedGroup from './get-saved-group.ts';
import * as holdoutResults from './holdout-results.ts';
import * as listExperimentVersions from './list-experiment-versions.ts';
import * as listExperiments from './list-experiments.ts';
import * as listFeedback from './list-feedback.ts';
import * as listHoldouts from './list-holdouts.ts';
import * as listKeys from './list-keys.ts';
import * as listLayers from './list-layers.ts';
import * as listSavedGroups from './list-saved-groups.ts';
import * as live from './live.ts';
import * as metricMethod from './metric-method.ts';
import * as portalSession from './portal-session.ts';
import * as results from './results.ts';
import * as resultsExport from './results-export.ts';
import * as resultsSummary from './results-summary.ts';
import * as revealKey from './reveal-key.ts';
import * as rotateKey from './rotate-key.ts';
import * as rotateWebhookSecret from './rotate-webhook-secret.ts';
import * as sampleSize from './sample-size.ts';
import * as stopExperiment from './stop-experiment.ts';
import * as submitFeedback from './submit-feedback.ts';
import * as testEvent from './test-event.ts';
import * as traffic from './traffic.ts';
import * as updateExperiment from './update-experiment.ts';
import * as updateHoldout from './update-holdout.ts';
import * as updateSavedGroup from './update-saved-group.ts';
import * as usage from './usage.ts';
import * as webhookSecretStatus from './webhook-secret-status.ts';
import * as whoami from './whoami.ts';

/** What the dashboard plane's hook and routes use (the test event goes through acceptance). */
export type DashboardDeps = SessionDeps &
  AcceptDeps &
  Pick<Context, 'db' | 'shards' | 'worker' | 'secretBox' | 'billing' | 'planPrices'>;

/** The dashboard plane: every route behind a session token, scoped to the caller's org. */
export const dashboardRoutes: Plane<DashboardDeps> = async (app, { ctx }) => {
  useSession(app, ctx);
  registerRoutes(app, ctx, [
    listExperiments,
    createExperiment,
    getExperiment,
    updateExperiment,
    experimentTransitions,
    stopExperiment,
    listExperimentVersions,
    getExperimentVersion,
    listSavedGroups,
    createSavedGroup,
    getSavedGroup,
    updateSavedGroup,
    listLayers,
    createLayer,
    getLayer,
    listHoldouts,
    createHoldout,
    getHoldout,
    updateHoldout,
    holdoutResults,
    testEvent,
    live,
    traffic,
    usage,
    billingSummary,
    checkoutSession,
    portalSession,
    results,
    resultsExport,
    resultsSummary,
    analyze,
    sampleSize,
    metricMethod,
    whoami,
    listFeedback,
    submitFeedback,
    audit,
    listKeys,
    rotateKey,
    revealKey,
    webhookSecretStatus,
    rotateWebhookSecret,
  ]);
};
