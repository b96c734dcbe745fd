/**
 * The parts of `evaluate` that need no server: the bounded pool that runs the tasks, the
 * progress line and callback, and the measurements a task's model calls add up to. The whole
 * of it runs against the server in apps/server/test/client-typescript-evaluate.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { forEachBounded } from '../src/internal/evaluate/bounded.ts';
import { ProgressReporter } from '../src/internal/evaluate/progress.ts';
import { errorText } from '../src/internal/evaluate/run-task.ts';
import { TaskMeasure } from '../src/internal/evaluate/task-measure.ts';
import { nodePlatform } from '../src/internal/platform-node.ts';
import { until } from './support/wait.ts';

async function* numbers(count: number, taken: number[]): AsyncGenerator<number> {
  for (let i = 0; i < count; i++) {
    taken.push(i);
    yield i;
  }
}

/** Work that holds each value until the test lets it go. */
function heldWork() {
  const running = new Set<number>();
  const releases = new Map<number, (error?: Error) => void>();
  const started: number[] = [];
  let most = 0;
  const work = (value: number) =>
    new Promise<void>((resolve, reject) => {
      started.push(value);
      running.add(value);
      most = Math.max(most, running.size);
      releases.set(value, (error) => {
        running.delete(value);
        if (error === undefined) resolve();
        else reject(error);
      });
    });
  const release = (value: number, error?: Error) => releases.get(value)?.(error);
  return { work, running, started, release, most: () => most };
}

describe('bounded concurrency', () => {
  it('never runs more than the limit at once, and starts values in the order yielded', async () => {
    const held = heldWork();
    const taken: number[] = [];
    const all = forEachBounded(numbers(10, taken), 3, held.work);
    for (let next = 0; next < 10; next++) {
      await until(() => held.started.includes(next));
      // Three start at once; each release lets exactly one more in.
      expect(held.running.size).toBeLessThanOrEqual(3);
      if (next >= 2) held.release(next - 2);
    }
    for (const value of [8, 9]) held.release(value);
    await all;
    expect(held.most()).toBe(3);
    expect(held.started).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('with a limit of 1 runs one at a time', async () => {
    const held = heldWork();
    const all = forEachBounded(numbers(4, []), 1, held.work);
    for (let next = 0; next < 4; next++) {
      await until(() => held.started.includes(next));
      expect([...held.running]).toEqual([next]);
      held.release(next);
    }
    await all;
    expect(held.most()).toBe(1);
  });

  it('stops taking values after a failure, lets the running ones finish, then throws it', async () => {
    const held = heldWork();
    const taken: number[] = [];
    const all = forEachBounded(numbers(100, taken), 2, held.work);
    const outcome = all.then(
      () => 'resolved',
      (err: Error) => err.message,
    );
    await until(() => held.started.length === 2);
    held.release(0, new Error('upload failed'));
    let settled = false;
    void outcome.then(() => {
      settled = true;
    });
    // The other running value still holds the pool open, however many turns pass.
    for (let turn = 0; turn < 20; turn++) await new Promise((r) => setImmediate(r));
    expect(settled).toBe(false);
    held.release(1);
    expect(await outcome).toBe('upload failed');
    expect(held.started).toEqual([0, 1]);
    expect(taken).toEqual([0, 1]);
  });

  it('throws what the source throws', async () => {
    async function* failing(): AsyncGenerator<number> {
      yield 1;
      throw new Error('items page refused');
    }
    const seen: number[] = [];
    await expect(
      forEachBounded(failing(), 4, async (v) => {
        seen.push(v);
      }),
    ).rejects.toThrow('items page refused');
    expect(seen).toEqual([1]);
  });
});

/** A terminal that keeps what was written, and a clock the test moves. */
function terminal() {
  const writes: string[] = [];
  let now = 0;
  return {
    writes,
    output: { write: (text: string) => void writes.push(text) },
    now: () => now,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

describe('progress', () => {
  it('redraws one line with done/total, percent and ETA, and ends it with a newline', () => {
    const t = terminal();
    const reporter = new ProgressReporter({
      experiment: 'math-helper',
      total: 4,
      output: t.output,
      onProgress: undefined,
      now: t.now,
      warn: () => {},
    });
    expect(t.writes).toEqual(['\revaluate math-helper: 0/4 (0%)\u001b[K']);
    t.advance(1_000);
    reporter.step();
    // One second per result so far, three to go.
    expect(t.writes.at(-1)).toBe('\revaluate math-helper: 1/4 (25%), ETA 3s\u001b[K');
    t.advance(1_000);
    reporter.step();
    expect(t.writes.at(-1)).toBe('\revaluate math-helper: 2/4 (50%), ETA 2s\u001b[K');
    // Results in the same instant are not redrawn, except the last one.
    reporter.step();
    expect(t.writes).toHaveLength(3);
    reporter.step();
    expect(t.writes.at(-1)).toBe('\revaluate math-helper: 4/4 (100%)\u001b[K');
    reporter.finish();
    expect(t.writes.at(-1)).toBe('\n');
  });

  it('calls onProgress after each result, and writes nothing without a terminal', () => {
    const seen: Array<{ done: number; total: number }> = [];
    const t = terminal();
    const reporter = new ProgressReporter({
      experiment: 'x',
      total: 3,
      output: null,
      onProgress: (p) => seen.push(p),
      now: t.now,
      warn: () => {},
    });
    for (let i = 0; i < 3; i++) reporter.step();
    reporter.finish();
    expect(seen).toEqual([
      { done: 1, total: 3 },
      { done: 2, total: 3 },
      { done: 3, total: 3 },
    ]);
    expect(t.writes).toEqual([]);
  });

  it('an onProgress that throws is told once and the counting goes on', () => {
    const warnings: string[] = [];
    let calls = 0;
    const reporter = new ProgressReporter({
      experiment: 'x',
      total: 2,
      output: null,
      onProgress: () => {
        calls++;
        throw new Error('ui gone');
      },
      now: () => 0,
      warn: (m) => warnings.push(m),
    });
    reporter.step();
    reporter.step();
    expect(calls).toBe(2);
    expect(warnings).toEqual(['evaluate: onProgress threw: Error: ui gone']);
  });

  it('Node draws on stderr only when it is a terminal', () => {
    const had = Object.getOwnPropertyDescriptor(process.stderr, 'isTTY');
    try {
      Object.defineProperty(process.stderr, 'isTTY', { value: true, configurable: true });
      expect(nodePlatform({}).progressOutput()).not.toBeNull();
      Object.defineProperty(process.stderr, 'isTTY', { value: undefined, configurable: true });
      expect(nodePlatform({}).progressOutput()).toBeNull();
    } finally {
      if (had === undefined) delete (process.stderr as { isTTY?: boolean }).isTTY;
      else Object.defineProperty(process.stderr, 'isTTY', had);
    }
  });
});

describe("a task's measurements", () => {
  it('are the task’s own time when it made no model call', () => {
    expect(new TaskMeasure('control').measurements(12.5)).toEqual({ latency_ms: 12.5 });
  });

  it('sum latency, tokens and cost over the calls, with the first call’s model', () => {
    const task = new TaskMeasure('concise');
    const first = task.begin();
    const second = task.begin();
    const unfinished = task.begin();
    void unfinished;
    // The second call ends first: the model is still the first call's.
    second({ model: 'gpt-b', input_tokens: 5, output_tokens: 2, cost_usd: 0.25 }, 40);
    first({ model: 'gpt-a', input_tokens: 11, output_tokens: 7, error: 'RateLimit' }, 30.5);
    expect(task.measurements(500)).toEqual({
      latency_ms: 70.5,
      input_tokens: 16,
      output_tokens: 9,
      cost: 0.25,
      model: 'gpt-a',
    });
  });

  it('leave tokens and cost out when no call reported them', () => {
    const task = new TaskMeasure('control');
    task.begin()({ model: 'm' }, 8);
    expect(task.measurements(100)).toEqual({ latency_ms: 8, model: 'm' });
  });
});

describe("a task's error", () => {
  it('is its message, cut to 500 characters, as storable text', () => {
    expect(errorText(new Error('boom'))).toBe('boom');
    expect(errorText('plain')).toBe('plain');
    expect(errorText(new Error(''))).toBe('Error');
    const long = errorText(new Error('x'.repeat(600)));
    expect(long).toHaveLength(500);
    expect(long.endsWith('…')).toBe(true);
    expect(errorText(new Error('a\u0000b\ud800c😀'))).toBe('a\ufffdb\ufffdc😀');
  });
});
