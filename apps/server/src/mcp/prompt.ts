/** The prompt template that walks an agent through designing an experiment for a change. */
export const DESIGN_PROMPT = {
  name: 'design_experiment',
  title: 'Design an experiment for this change',
  description:
    'Walks through the variants, the metrics with their directions, the guardrails and the MDE of an experiment for a change, then creates it as a draft.',
  arguments: [
    {
      name: 'change',
      description: 'The change to test: what it alters (a prompt, a model, a parameter) and why',
      required: true,
    },
  ],
};

/** The prompt's one user message for the change described. */
export function designPromptText(change: string): string {
  return [
    'Design an Arbiter experiment for this change, then create it as a draft:',
    '',
    change,
    '',
    '1. Variants: the control first (what runs today), then one variant per alternative of the change; name them in lower case. Give each a config payload the code reads (the prompt, the model, the parameter). Split traffic evenly unless there is a reason not to.',
    '2. Metrics: one or two primary metrics the change is meant to move, each with its kind and its direction (increase or decrease is better). A metric that tells whether users got what they wanted (a business metric, a judge score) beats a proxy.',
    '3. Guardrails: the metrics that must not get worse (latency, cost, error rate), each with category guardrail and its direction.',
    '4. MDE: the smallest relative effect worth shipping on each primary metric (0.05 = 5 %). For an experiment that already has traffic, call estimate_sample_size to see the users per arm and days that MDE needs; prefer an MDE the traffic reaches in two weeks.',
    '5. Call list_experiments to check the name is free, then create_experiment with body.status "draft". If it answers a problem, fix the field its pointer names and try again.',
    '6. Show the draft and what it will measure; an admin starts it with start_experiment.',
  ].join('\n');
}
