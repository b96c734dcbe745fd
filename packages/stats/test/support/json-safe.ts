import { expect } from 'vitest';

/** Every number in a result must be finite: results are stored and served as JSON. */
export function expectJsonSafe(value: unknown, path = 'result'): void {
  if (typeof value === 'number') {
    expect(Number.isFinite(value), `${path} = ${value}`).toBe(true);
  } else if (Array.isArray(value)) {
    value.forEach((v, i) => {
      expectJsonSafe(v, `${path}[${i}]`);
    });
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) expectJsonSafe(v, `${path}.${k}`);
  }
}
