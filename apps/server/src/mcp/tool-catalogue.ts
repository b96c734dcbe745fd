/**
 * The tools, each the call of one route of the contract (its method and path as the OpenAPI
 * document spells them) with a description that says when to use it. Their input schemas are
 * generated from that document (tool-schemas.generated.json, written with it).
 */
export interface RouteTool {
  name: string;
  title: string;
  description: string;
  method: 'GET' | 'POST' | 'PUT';
  path: string;
  /** Changes nothing: safe to call to look. */
  readOnly: boolean;
  /** Changes what users are served or ends something that cannot be resumed as it was. */
  destructive: boolean;
}

const read = { readOnly: true, destructive: false } as const;

export const ROUTE_TOOLS: readonly RouteTool[] = [
  {
    name: 'list_experiments',
    title: 'List experiments',
    description:
      "List the org's experiments (latest version each, with its last analysis run). Use first, to find an experiment's id or to see what is running; archived ones only when `status` names them.",
    method: 'GET',
    path: '/v1/experiments',
    ...read,
  },
  {
    name: 'get_experiment',
    title: 'Get an experiment',
    description:
      "One experiment's current config (variants, allocation, metrics, status, version), by id or name. Use before update_experiment, to change it from what it is.",
    method: 'GET',
    path: '/v1/experiments/{id}',
    ...read,
  },
  {
    name: 'create_experiment',
    title: 'Create an experiment',
    description:
      'Create an experiment for a change: `body` is the experiment config (name, variants with the control first, allocation, metrics with their directions and categories). Set body.status to "draft" to review it before start_experiment; absent, it is live at once. An invalid config answers the API\'s problem, with a pointer to the field.',
    method: 'POST',
    path: '/v1/experiments',
    readOnly: false,
    destructive: false,
  },
  {
    name: 'update_experiment',
    title: 'Update an experiment',
    description:
      "Change an experiment's config; mints a new version. `body` holds the fields to change. Read it with get_experiment first. An invalid change answers the API's problem, with a pointer to the field.",
    method: 'PUT',
    path: '/v1/experiments/{id}',
    readOnly: false,
    destructive: true,
  },
  {
    name: 'get_results',
    title: 'Get results',
    description:
      "The latest computed results: the decision, each metric's outcome and effect in its units, the SRM check. While the experiment is still collecting, the answer says so and gives, per primary metric, the users per arm and days still needed. Use to decide whether it won.",
    method: 'GET',
    path: '/v1/experiments/{id}/results',
    ...read,
  },
  {
    name: 'run_analysis',
    title: 'Run an analysis now',
    description:
      'Run a preliminary analysis now (SRM, tests, false-discovery correction over a window ending now) and store it under a manual label. Use when results are needed before the nightly run; it does not change the experiment.',
    method: 'POST',
    path: '/v1/experiments/{id}/analyze',
    readOnly: false,
    destructive: false,
  },
  {
    name: 'estimate_sample_size',
    title: 'Estimate the sample size',
    description:
      "Users per arm to detect a relative effect `mde` (default: the metric's own) on one metric of an experiment at α = 0.05 and 80 % power, from the arms' variance so far, and the days until the arms reach it at today's traffic. Use to choose an MDE, or to say how long an experiment must still run.",
    method: 'GET',
    path: '/v1/experiments/{id}/sample-size',
    ...read,
  },
  {
    name: 'list_offline_runs',
    title: 'List offline runs',
    description:
      "An experiment's offline evaluation runs (variants scored on a dataset before going live), newest first. Use to see whether a change was evaluated offline.",
    method: 'GET',
    path: '/v1/experiments/{id}/offline-runs',
    ...read,
  },
  {
    name: 'get_offline_run',
    title: 'Get an offline run',
    description:
      "One offline evaluation run with its per-variant scores and comparisons. Use after list_offline_runs to read a run's verdict.",
    method: 'GET',
    path: '/v1/offline-runs/{run_id}',
    ...read,
  },
  {
    name: 'start_experiment',
    title: 'Start an experiment',
    description:
      "Start a draft: users are assigned from their clients' next poll. Admin or owner only. Use once the draft from create_experiment is reviewed.",
    method: 'POST',
    path: '/v1/experiments/{id}/start',
    readOnly: false,
    destructive: true,
  },
  {
    name: 'stop_experiment',
    title: 'Stop an experiment',
    description:
      'Stop a running experiment with a conclusion: "ship" a variant to everyone eligible, or "rollback"/"inconclusive" (the control). Cannot be restarted. Admin or owner only. Use once get_results has a decision.',
    method: 'POST',
    path: '/v1/experiments/{id}/stop',
    readOnly: false,
    destructive: true,
  },
  {
    name: 'archive_experiment',
    title: 'Archive an experiment',
    description:
      'Archive a draft or stopped experiment: it leaves the config and the default list; its results stay readable. Admin or owner only.',
    method: 'POST',
    path: '/v1/experiments/{id}/archive',
    readOnly: false,
    destructive: true,
  },
  {
    name: 'get_rollout',
    title: "Read an experiment's ramp",
    description:
      'The ramp of an experiment with a rollout: its steps, the current step and coverage, when the next step is due, whether it is paused and why, and its guard: the latest evaluations of the guardrails and the SRM check, and whether the guard paused the ramp or rolled the experiment back. Use to watch a rollout that start_experiment began.',
    method: 'GET',
    path: '/v1/experiments/{id}/rollout',
    ...read,
  },
  {
    name: 'pause_rollout',
    title: 'Pause a ramp',
    description:
      'Hold the coverage where it is: no step advances until resumed. Admin or owner only. Use when something looks wrong during a rollout.',
    method: 'POST',
    path: '/v1/experiments/{id}/rollout/pause',
    readOnly: false,
    destructive: false,
  },
  {
    name: 'resume_rollout',
    title: 'Resume a ramp',
    description:
      "Resume a paused ramp: the current step's hold starts again in full. Admin or owner only.",
    method: 'POST',
    path: '/v1/experiments/{id}/rollout/resume',
    readOnly: false,
    destructive: false,
  },
];
