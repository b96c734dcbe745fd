const PALETTE = ['#2563eb', '#d97706', '#059669', '#7c3aed', '#db2777', '#0891b2', '#65a30d'];

/**
 * The one colour of an arm on every chart and legend: by its place in the experiment's variant
 * list (`variants`, the experiment's own order), never by its place in one chart's data, so
 * Results, Live, Traffic and the bucket map agree. An arm the list lacks goes after it.
 */
export function armColour(variants: readonly string[], arm: string): string {
  const i = variants.indexOf(arm);
  return PALETTE[(i === -1 ? variants.length : i) % PALETTE.length] as string;
}

/**
 * The experiment's arms in its own order, what armColour places arms by: its variants, then any
 * arm of its allocation they leave out (an experiment made without a variant list).
 */
export const armOrder = (experiment: {
  variants?: ReadonlyArray<{ key: string }>;
  allocation: ReadonlyArray<{ variant: string }>;
}): string[] => [
  ...new Set([
    ...(experiment.variants ?? []).map((v) => v.key),
    ...experiment.allocation.map((a) => a.variant),
  ]),
];
