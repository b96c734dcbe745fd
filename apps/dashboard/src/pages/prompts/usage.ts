import type { Experiment } from '../../api/client.ts';

/** An experiment whose variants reference the prompt: each such variant and its version. */
export interface PromptUse {
  experiment: Experiment;
  variants: Array<{ key: string; version: number }>;
}

/**
 * The experiments (their latest versions, as the list route gives them) with at least one
 * variant referencing prompt `name`, in the list's order.
 */
export function promptUses(experiments: Experiment[], name: string): PromptUse[] {
  return experiments.flatMap((experiment) => {
    const variants = (experiment.variants ?? []).flatMap((v) =>
      typeof v.prompt === 'object' && v.prompt.name === name
        ? [{ key: v.key, version: v.prompt.version }]
        : [],
    );
    return variants.length === 0 ? [] : [{ experiment, variants }];
  });
}

/** What a stop concluded, in words: "shipped concise (v3)", "rolled back to control", … */
export function conclusionText(use: PromptUse): string | null {
  const stop = use.experiment.stop;
  if (!stop) return null;
  const version = use.variants.find((v) => v.key === stop.served_variant)?.version;
  const served =
    version === undefined ? stop.served_variant : `${stop.served_variant} (v${version})`;
  if (stop.conclusion === 'ship') return `shipped ${served}`;
  if (stop.conclusion === 'rollback') return `rolled back to ${served}`;
  return `inconclusive, serves ${served}`;
}
