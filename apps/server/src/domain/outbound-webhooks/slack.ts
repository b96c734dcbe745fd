/**
 * The Slack rendering of an event: a Block Kit message (a header line saying what happened, a
 * section with the facts, a link to the dashboard page) posted to an incoming-webhook URL
 * instead of the signed JSON. Slack's incoming webhooks take no signature; the URL is the secret.
 */
type Data = Record<string, unknown>;
type Event = { type: string; timestamp: string; data: Data };

/** Slack's mrkdwn reads `&`, `<` and `>` as markup: text from the event is escaped. */
const str = (v: unknown) =>
  v === null || v === undefined
    ? '—'
    : String(v).replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
const code = (v: unknown) => `\`${str(v)}\``;

/** What happened, in one line, per event type; the facts follow it. */
const HEADLINE: Record<string, (d: Data) => string> = {
  'results.published': (d) =>
    `Results published for experiment ${code(d.experiment_id)}${d.final ? ' (final)' : ''}`,
  'results.halted': (d) => `The SRM gate halted the run of experiment ${code(d.experiment_id)}`,
  'guardrail.violated': (d) =>
    `Guardrail ${code(d.metric)} violated by ${code(d.treatment)} in experiment ${code(d.experiment_id)}`,
  'experiment.created': (d) => `Experiment *${str(d.name)}* created`,
  'experiment.updated': (d) =>
    `Experiment ${code(d.experiment_id)} updated to version ${str(d.version)}`,
  'experiment.started': (d) => `Experiment *${str(d.name)}* started`,
  'experiment.stopped': (d) => `Experiment *${str(d.name)}* stopped`,
  'experiment.archived': (d) => `Experiment *${str(d.name)}* archived`,
  'experiment.rollout_advanced': (d) =>
    `Experiment *${str(d.name)}* advanced its rollout to step ${str(d.step)} of ${str(d.steps)}`,
  'rollout.paused': (d) =>
    `The rollout of experiment *${str(d.name)}* paused at step ${str(d.step)}`,
  'experiment.rolled_back': (d) =>
    `The rollout's guard rolled experiment *${str(d.name)}* back at step ${str(d.step)}`,
  'offline_run.completed': (d) =>
    d.status === 'failed'
      ? `Offline run ${code(d.run_id)} failed`
      : `Offline run ${code(d.run_id)} completed: gate ${d.passed ? 'passed' : 'failed'}`,
  'usage.threshold': (d) =>
    `Your org has used ${str(d.percent)} % of this month's ${str(d.metric)} allowance`,
  'webhook_endpoint.test': () => 'A test event from Arbiter',
};

/** The facts worth reading per type: the recommendation, the violation, the conclusion. */
const FACTS: Record<string, (d: Data) => string[]> = {
  'results.published': (d) => [
    `*Recommendation:* ${str(d.recommendation)}`,
    `*Treatment:* ${str(d.treatment)}`,
    `*Guardrail violations:* ${str(d.violations)}`,
    `*Day:* ${str(d.day)}`,
  ],
  'results.halted': (d) => [`*Recommendation:* ${str(d.recommendation)}`, `*Day:* ${str(d.day)}`],
  'guardrail.violated': (d) => [`*Run:* ${str(d.run)}`],
  'experiment.created': (d) => [`*Version:* ${str(d.version)}`],
  'experiment.updated': (d) => [
    `*Changed:* ${Array.isArray(d.changed) ? d.changed.join(', ') : str(d.changed)}`,
  ],
  'experiment.started': (d) => [`*From:* ${str(d.from)} → ${str(d.to)}`],
  'experiment.stopped': (d) => [
    `*Conclusion:* ${str(d.conclusion)}`,
    `*Serving:* ${str(d.variant)}`,
    `*Reason:* ${str(d.reason)}`,
  ],
  'experiment.archived': (d) => [`*From:* ${str(d.from)}`],
  'experiment.rollout_advanced': (d) => [`*Coverage:* ${str(d.coverage)}`],
  'rollout.paused': (d) => [`*By:* ${str(d.by)}`, `*Reason:* ${str(d.reason)}`],
  'experiment.rolled_back': (d) => [`*Reason:* ${str(d.reason)}`, `*Coverage:* ${str(d.coverage)}`],
  'offline_run.completed': (d) =>
    d.status === 'failed'
      ? [`*Reason:* ${str(d.failure_reason)}`]
      : Object.entries(
          (d.gates ?? {}) as Record<string, { passed: boolean; reasons: string[] }>,
        ).map(
          ([treatment, g]) =>
            `*${treatment}:* ${g.passed ? 'passed' : `failed (${g.reasons.join('; ')})`}`,
        ),
  'usage.threshold': (d) => [`*Used:* ${str(d.used)} of ${str(d.allowance)} (${str(d.month)})`],
  'webhook_endpoint.test': (d) => [str(d.message)],
};

/** Where `link` points: under the dashboard's URL when it is known, else the path itself. */
function linkLine(link: unknown, dashboardUrl: string | null): string | null {
  if (typeof link !== 'string') return null;
  if (dashboardUrl === null) return `Open the dashboard at ${code(link)}`;
  return `<${dashboardUrl.replace(/\/+$/, '')}${link}|Open in Arbiter>`;
}

/** The Slack message for one stored event body (`{type, timestamp, data}`), as JSON text. */
export function slackBody(body: string, dashboardUrl: string | null): string {
  const event = JSON.parse(body) as Event;
  const headline = (HEADLINE[event.type] ?? (() => event.type))(event.data);
  const facts = (FACTS[event.type] ?? (() => []))(event.data);
  const link = linkLine(event.data.link, dashboardUrl);
  const blocks: unknown[] = [{ type: 'section', text: { type: 'mrkdwn', text: headline } }];
  if (facts.length > 0)
    blocks.push({ type: 'section', text: { type: 'mrkdwn', text: facts.join('\n') } });
  if (link !== null) blocks.push({ type: 'section', text: { type: 'mrkdwn', text: link } });
  blocks.push({
    type: 'context',
    elements: [{ type: 'mrkdwn', text: `${code(event.type)} · ${event.timestamp}` }],
  });
  return JSON.stringify({ text: headline.replaceAll('*', '').replaceAll('`', ''), blocks });
}
