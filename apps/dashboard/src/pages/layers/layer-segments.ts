import type { LayerRun } from '../../api/client.ts';

/** One stretch of a layer's buckets, half-open: an experiment's run, a retired one, or free. */
export interface LayerSegment {
  start: number;
  end: number;
  /** The experiment's name; null for buckets never handed out. */
  experiment: string | null;
  retired: boolean;
}

/**
 * The whole layer, 0 to bucket_count, as the server's runs plus the gaps between them (the
 * never-used buckets), lowest first, so the bar and its table show every bucket exactly once.
 */
export function layerSegments(runs: readonly LayerRun[], bucketCount: number): LayerSegment[] {
  const sorted = [...runs].sort((a, b) => a.start - b.start);
  const out: LayerSegment[] = [];
  let cursor = 0;
  for (const r of sorted) {
    if (r.start > cursor)
      out.push({ start: cursor, end: r.start, experiment: null, retired: false });
    out.push({ start: r.start, end: r.end, experiment: r.experiment, retired: r.retired });
    cursor = Math.max(cursor, r.end);
  }
  if (cursor < bucketCount)
    out.push({ start: cursor, end: bucketCount, experiment: null, retired: false });
  return out;
}

/** Buckets some experiment holds now (retired ones excluded: nobody enters through them). */
export const ownedBuckets = (runs: readonly LayerRun[]): number =>
  runs.filter((r) => !r.retired).reduce((n, r) => n + r.end - r.start, 0);

/** "12–499" for the half-open run [12, 500), as the experiment editor's bucket bar writes it. */
export const bucketRange = (s: { start: number; end: number }): string =>
  s.end - s.start === 1 ? `${s.start}` : `${s.start}–${s.end - 1}`;

/** What a segment is, in words: the bar's label and the table's owner cell. */
export const segmentOwner = (s: LayerSegment): string =>
  s.experiment === null ? 'free' : s.retired ? `${s.experiment} (retired)` : s.experiment;

/** The experiments in the order they first appear: the colour order of the bar. */
export const layerExperiments = (runs: readonly LayerRun[]): string[] => [
  ...new Set([...runs].sort((a, b) => a.start - b.start).map((r) => r.experiment)),
];
