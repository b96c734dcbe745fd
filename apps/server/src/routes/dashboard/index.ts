import type { Context } from '../../context.ts';
import type { App } from '../../http/app-types.ts';
import { sessionHook } from '../../http/session-auth.ts';
import * as analyze from './analyze.ts';
import * as audit from './audit.ts';
import * as createExperiment from './create-experiment.ts';
import * as feedback from './feedback.ts';
import * as getExperiment from './get-experiment.ts';
import * as keys from './keys.ts';
import * as listExperimentVersions from './list-experiment-versions.ts';
import * as listExperiments from './list-experiments.ts';
import * as live from './live.ts';
import * as metricMethod from './metric-method.ts';
import * as results from './results.ts';
import * as testEvent from './test-event.ts';
import * as traffic from './traffic.ts';
import * as updateExperiment from './update-experiment.ts';
import * as usage from './usage.ts';
import * as webhookSecrets from './webhook-secrets.ts';
import * as whoami from './whoami.ts';

/** The dashboard plane: every route behind a session token, scoped to the caller's org. */
export async function dashboardRoutes(app: App, ctx: Context): Promise<void> {
  app.decorateRequest('caller', null);
  app.addHook('onRequest', sessionHook(ctx));
  listExperiments.register(app, ctx);
  createExperiment.register(app, ctx);
  getExperiment.register(app, ctx);
  updateExperiment.register(app, ctx);
  listExperimentVersions.register(app, ctx);
  testEvent.register(app, ctx);
  live.register(app, ctx);
  traffic.register(app, ctx);
  usage.register(app, ctx);
  results.registerResults(app, ctx);
  results.registerSummary(app, ctx);
  analyze.register(app, ctx);
  metricMethod.register(app, ctx);
  whoami.register(app, ctx);
  feedback.registerList(app, ctx);
  feedback.registerSubmit(app, ctx);
  audit.register(app, ctx);
  keys.registerList(app, ctx);
  keys.registerRotate(app, ctx);
  keys.registerReveal(app, ctx);
  webhookSecrets.registerStatus(app, ctx);
  webhookSecrets.registerRotate(app, ctx);
}
