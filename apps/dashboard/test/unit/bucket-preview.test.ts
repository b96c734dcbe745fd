import { describe, expect, it } from 'vitest';
import { currentMap, previewChange, previewCreate } from '../../src/pages/editor/bucket-preview.ts';

const halves = [
  { variant: 'control', weight: 50 },
  { variant: 'treatment', weight: 50 },
];

describe('the allocation preview', () => {
  it('lays a new experiment out from bucket 0, every bucket used', () => {
    const preview = previewCreate(halves, 100);
    expect(preview).toMatchObject({ ok: true, unused: 0, retired: 0 });
    expect(preview.map.runs).toEqual([
      { variant: 'control', start: 0, end: 50 },
      { variant: 'treatment', start: 50, end: 100 },
    ]);
    if (preview.ok)
      expect(preview.changes).toEqual([
        { variant: 'control', before: 0, after: 50, retired: 0, added: 50 },
        { variant: 'treatment', before: 0, after: 50, retired: 0, added: 50 },
      ]);
  });

  it('retires the buckets a shrinking variant gives up; they never become free again', () => {
    const start = previewCreate(halves, 100).map;
    const preview = previewChange(start, [
      { variant: 'control', weight: 50 },
      { variant: 'treatment', weight: 25 },
    ]);
    expect(preview).toMatchObject({ ok: true, retired: 25, unused: 0 });
    if (preview.ok)
      expect(preview.changes.find((c) => c.variant === 'treatment')).toEqual({
        variant: 'treatment',
        before: 50,
        after: 25,
        retired: 25,
        added: 0,
      });
  });

  it('refuses a change that needs more never-used buckets than remain, keeping the map', () => {
    const start = previewCreate(halves, 100).map;
    const preview = previewChange(start, [
      { variant: 'control', weight: 40 },
      { variant: 'treatment', weight: 60 },
    ]);
    expect(preview.ok).toBe(false);
    if (!preview.ok) {
      expect(preview.reason).toContain('never-used buckets');
      expect(preview.map).toBe(start);
    }
  });

  it('rebuilds the full map from the versions: buckets an earlier version owned are retired', () => {
    const map = currentMap(10, [
      { bucket_ranges: [{ variant: 'control', start: 0, end: 4 }] },
      { bucket_ranges: [{ variant: 'control', start: 0, end: 6 }] },
    ]);
    expect(map).toEqual({
      bucket_count: 10,
      runs: [
        { variant: 'control', start: 0, end: 4 },
        { variant: null, start: 4, end: 6 },
      ],
    });
  });
});
