import { describe, expect, it } from 'vitest';
import {
  bucketRange,
  layerSegments,
  ownedBuckets,
  segmentOwner,
} from '../../src/pages/layers/layer-segments.ts';

const run = (experiment: string, start: number, end: number, retired = false) => ({
  experiment_id: `00000000-0000-4000-8000-00000000000${experiment.length}`,
  experiment,
  start,
  end,
  retired,
});

describe('a layer as segments', () => {
  it('covers every bucket once: runs by start, gaps between them free', () => {
    const runs = [run('b', 300, 400), run('a', 0, 100), run('a', 100, 150, true)];
    const segments = layerSegments(runs, 1000);
    expect(segments.map((s) => [segmentOwner(s), bucketRange(s)])).toEqual([
      ['a', '0–99'],
      ['a (retired)', '100–149'],
      ['free', '150–299'],
      ['b', '300–399'],
      ['free', '400–999'],
    ]);
    expect(segments.reduce((n, s) => n + s.end - s.start, 0)).toBe(1000);
    expect(ownedBuckets(runs)).toBe(200);
  });

  it('is one free segment for a new layer, and none when the runs fill it', () => {
    expect(layerSegments([], 10)).toEqual([
      { start: 0, end: 10, experiment: null, retired: false },
    ]);
    expect(layerSegments([run('a', 0, 10)], 10)).toHaveLength(1);
    expect(bucketRange({ start: 4, end: 5 })).toBe('4');
  });
});
