import { type TSchema, Type } from 'typebox';
import type { WebhookEventType } from './event-types.ts';

/**
 * The `data` of each event type, as sent: the OpenAPI document's `webhooks` describe each body
 * from these, and the tests check every delivered body against them.
 */
const Id = (description: string) => Type.String({ format: 'uuid', description });
const Str = (description: string) => Type.String({ description });
const Nullable = (t: TSchema, description: string) => Type.Union([t, Type.Null()], { description });
const ExperimentId = Id('The experiment');
const Link = Str("The dashboard's page of it, a path relative to where the dashboard is served");
const Name = Str("The experiment's name");

const runData = Type.Object({
  experiment_id: ExperimentId,
  day: Str('The run: its UTC day (YYYY-MM-DD), or `final`'),
  final: Type.Boolean({ description: 'The final run, after the experiment stopped' }),
  recommendation: Str('What the run recommends (`ship`, `keep_running`, `halted`, …)'),
  treatment: Nullable(Type.String(), 'The treatment it recommends, when it names one'),
  violations: Type.Integer({ minimum: 0, description: 'Guardrail violations found' }),
  link: Link,
});

const lifecycle = {
  experiment_id: ExperimentId,
  name: Name,
  from: Str('The status it left'),
  to: Str('The status it is in now'),
};

/** A guardrail the ramp's guard found worse: its interval and always-valid p. */
const GuardReading = Type.Object({
  metric: Str('The guardrail metric'),
  treatment: Str('The treatment it compares with control'),
  direction: Type.Union([Type.Literal('increase'), Type.Literal('decrease')], {
    description: 'Which way is better for the metric',
  }),
  effect: Nullable(Type.Number(), 'Treatment minus control'),
  ci_low: Nullable(Type.Number(), 'The always-valid interval’s low end'),
  ci_high: Nullable(Type.Number(), 'Its high end'),
  p_value: Nullable(Type.Number(), 'The always-valid p-value'),
  n_control: Type.Integer({ minimum: 0 }),
  n_treatment: Type.Integer({ minimum: 0 }),
  worse: Type.Boolean(),
});

/** What the ramp's guard saw when it acted. */
const guardSaw = {
  coverage: Type.Number({ description: 'The coverage when the guard acted' }),
  evaluation_id: Id('The stored evaluation (GET /v1/experiments/{id}/rollout/evaluations)'),
  srm_p: Nullable(Type.Number(), "The SRM check's p-value"),
  guardrails: Type.Array(GuardReading, { description: 'The guardrails found worse' }),
};

export const EVENT_DATA_SCHEMAS: Record<WebhookEventType, TSchema> = {
  'results.published': runData,
  'results.halted': runData,
  'guardrail.violated': Type.Object({
    experiment_id: ExperimentId,
    run: Str('The run that found it (its day, `final` or a manual run)'),
    metric: Str('The guardrail metric'),
    treatment: Str('The treatment found worse'),
    link: Link,
  }),
  'experiment.created': Type.Object({
    experiment_id: ExperimentId,
    name: Name,
    version: Type.Integer({ minimum: 1 }),
    status: Type.Optional(Type.Literal('draft', { description: 'Present for a draft' })),
  }),
  'experiment.updated': Type.Object({
    experiment_id: ExperimentId,
    version: Type.Integer({ minimum: 1, description: 'The version the change made' }),
    changed: Type.Array(Type.String(), { description: 'The fields changed' }),
  }),
  'experiment.started': Type.Object(lifecycle),
  'experiment.stopped': Type.Object({
    ...lifecycle,
    conclusion: Nullable(Type.String(), 'The stop’s conclusion'),
    variant: Nullable(Type.String(), 'The variant served from now on'),
    reason: Nullable(Type.String(), 'Why, in the words of who stopped it'),
  }),
  'experiment.archived': Type.Object(lifecycle),
  'experiment.rollout_advanced': Type.Object({
    experiment_id: ExperimentId,
    name: Name,
    from_step: Type.Integer({ minimum: 1 }),
    step: Type.Integer({ minimum: 1, description: 'The step now, from 1' }),
    steps: Type.Integer({ minimum: 1 }),
    coverage: Type.Number({ description: "The step's coverage" }),
    version: Type.Integer({ minimum: 1 }),
  }),
  'rollout.paused': Type.Object({
    experiment_id: ExperimentId,
    name: Name,
    step: Type.Integer({ minimum: 1 }),
    by: Str('`user` or `guard`'),
    reason: Nullable(Type.String(), 'Why, when given'),
    coverage: Type.Optional(guardSaw.coverage),
    evaluation_id: Type.Optional(guardSaw.evaluation_id),
    srm_p: Type.Optional(guardSaw.srm_p),
    guardrails: Type.Optional(guardSaw.guardrails),
  }),
  'experiment.rolled_back': Type.Object({
    experiment_id: ExperimentId,
    name: Name,
    step: Type.Integer({ minimum: 1, description: 'The step the ramp was at' }),
    reason: Str('Why, in the guard’s words'),
    ...guardSaw,
  }),
  'offline_run.completed': Type.Object({
    run_id: Id('The offline run'),
    experiment_id: ExperimentId,
    experiment_version: Type.Integer({ minimum: 1 }),
    status: Type.Union([Type.Literal('complete'), Type.Literal('failed')]),
    passed: Nullable(
      Type.Boolean(),
      'Every treatment passed its gate; null when the run failed and has no statistics',
    ),
    gates: Nullable(
      Type.Record(
        Type.String(),
        Type.Object({ passed: Type.Boolean(), reasons: Type.Array(Type.String()) }),
      ),
      'Per treatment; null when the run failed',
    ),
    failure_reason: Nullable(Type.String(), 'Why the run failed'),
    link: Link,
  }),
  'usage.threshold': Type.Object({
    metric: Type.Literal('events'),
    percent: Type.Union([Type.Literal(80), Type.Literal(100)]),
    month: Str('The UTC month (YYYY-MM)'),
    used: Type.Integer({
      minimum: 0,
      description: 'Events metered this month when it was reached',
    }),
    allowance: Type.Integer({ minimum: 0, description: "The plan's monthly event allowance" }),
  }),
  'webhook_endpoint.test': Type.Object({
    endpoint_id: Id('The endpoint tested'),
    message: Type.String(),
  }),
};

/** The body of one event type: `{type, timestamp, data}`. */
export const eventBodySchema = (type: WebhookEventType) =>
  Type.Object(
    {
      type: Type.Literal(type),
      timestamp: Type.String({ format: 'date-time', description: 'When it happened' }),
      data: EVENT_DATA_SCHEMAS[type],
    },
    { title: `${type} event` },
  );

/** What happens for each type, in the document's words. */
const SUMMARIES: Record<WebhookEventType, string> = {
  'results.published': 'A nightly or final run is stored for the first time',
  'results.halted': 'A nightly or final run is stored and the SRM gate halted it',
  'guardrail.violated': 'A run finds a guardrail worse (once per run, metric and treatment)',
  'experiment.created': 'An experiment is created',
  'experiment.updated': 'An experiment is changed',
  'experiment.started': 'A draft starts',
  'experiment.stopped': 'A running experiment stops',
  'experiment.archived': 'A draft or stopped experiment is archived',
  'experiment.rollout_advanced': "A ramp's hold passed and it moved to its next step",
  'rollout.paused': 'A ramp is paused, by a person or its guard',
  'experiment.rolled_back':
    "A ramp's guard stopped the experiment with conclusion rollback (experiment.stopped is sent too)",
  'offline_run.completed': 'An offline run completes (its gate passed or failed) or fails',
  'usage.threshold':
    "The org's month reaches 80 % or 100 % of its event allowance (each once a month)",
  'webhook_endpoint.test': 'POST /v1/webhook-endpoints/{id}/test',
};

const SIGNED = `POSTed to each enabled endpoint that wants the type, signed by the Standard Webhooks scheme: \`webhook-id\` (the event id, the same on every attempt), \`webhook-timestamp\`, \`webhook-signature\` (\`v1,\` + base64 HMAC-SHA256 of \`id.timestamp.body\`). A 2xx ends the delivery; anything else is retried. A \`slack\` endpoint gets a Block Kit message instead.`;

/** The OpenAPI 3.1 `webhooks` map: one entry per event type, its body from the schemas above. */
export function openApiWebhooks(types: readonly WebhookEventType[]) {
  return Object.fromEntries(
    types.map((type) => [
      type,
      {
        post: {
          summary: SUMMARIES[type],
          description: SIGNED,
          tags: ['webhook-endpoints'],
          requestBody: {
            required: true,
            content: { 'application/json': { schema: eventBodySchema(type) } },
          },
          responses: { '200': { description: 'Any 2xx: received' } },
        },
      },
    ]),
  );
}
