import { MAX_ERROR_LENGTH } from './constants.ts';
import type { CallMeasure, ProviderReader } from './model-call-measure.ts';

export type FinishModelCall = (measure: CallMeasure, latencyMs: number) => void;

/**
 * Times one model call from the moment it is made until its response is parsed or, for a
 * stream, until the stream ends, breaks or fails. Whatever happens, `finish` runs once.
 * Observation never changes what the caller gets back, errors included.
 */
export class ModelCall {
  private readonly measure: CallMeasure = { error: null };
  private readonly startedAt = performance.now();
  private finished = false;

  constructor(
    private readonly readers: readonly ProviderReader[],
    params: unknown,
    private readonly finish: FinishModelCall,
  ) {
    const requestedModel = (params as { model?: unknown } | null | undefined)?.model;
    if (typeof requestedModel === 'string') this.measure.model = requestedModel;
    try {
      for (const reader of readers) reader.readRequest(params, this.measure);
    } catch {}
  }

  /** Observes what the provider method returned (a value, a promise, or the SDKs' APIPromise). */
  observe(result: unknown): unknown {
    if (!isThenable(result)) return this.observeValue(result);
    const apiPromise = result as { _thenUnwrap?: unknown };
    if (typeof apiPromise._thenUnwrap === 'function') {
      // Both SDKs return an APIPromise; deriving through its own transform keeps
      // `.withResponse()` and `.asResponse()` working on what the caller receives.
      const derived = (apiPromise._thenUnwrap as (f: (data: unknown) => unknown) => unknown).call(
        result,
        (data) => this.observeValue(data),
      ) as PromiseLike<unknown> & { parseResponse?: unknown };
      // An SDK helper (`parse()`) may derive again with `_thenUnwrap`, which calls
      // `parseResponse` anew and would read the body a second time: it gets the first parse.
      const parseResponse = derived.parseResponse;
      if (typeof parseResponse === 'function') {
        let parsed: unknown;
        derived.parseResponse = function parseOnce(this: unknown, ...args: unknown[]) {
          if (parsed === undefined) parsed = Reflect.apply(parseResponse, this, args);
          return parsed;
        };
      }
      // Awaiting it now also starts parsing at once, so the latency ends when the response does.
      derived.then(undefined, (err: unknown) => this.fail(err));
      return derived;
    }
    return Promise.resolve(result).then(
      (value) => this.observeValue(value),
      (err: unknown) => {
        this.fail(err);
        throw err;
      },
    );
  }

  fail(err: unknown): void {
    this.measure.error = describeError(err);
    this.end();
  }

  /** Notes a stream's first token, once: the time to first token. */
  firstToken(): void {
    if (this.finished || this.measure.time_to_first_token_ms !== undefined) return;
    this.measure.time_to_first_token_ms = this.elapsed();
  }

  /** Ends the call with what an integration read from its framework's own result shapes. */
  complete(measure: CallMeasure): void {
    if (this.finished) return;
    Object.assign(this.measure, measure);
    this.end();
  }

  observeValue<T>(value: T): T {
    try {
      if (isAsyncIterable(value)) {
        this.tapStream(value);
        return value;
      }
      for (const reader of this.readers) reader.readResult(value, this.measure);
    } catch {}
    this.end();
    return value;
  }

  private tapStream(stream: AsyncIterable<unknown>): void {
    const original = stream[Symbol.asyncIterator];
    const call = this;
    // An own property on the instance: the SDK's Stream keeps its class, controller and methods.
    Object.defineProperty(stream, Symbol.asyncIterator, {
      configurable: true,
      writable: true,
      value: function tapped(): AsyncIterator<unknown> {
        const inner = original.call(stream);
        const tap: AsyncIterator<unknown> & AsyncIterable<unknown> = {
          async next(...args: [] | [unknown]) {
            try {
              const step = await inner.next(...args);
              if (step.done) call.end();
              else call.readChunk(step.value);
              return step;
            } catch (err) {
              call.fail(err);
              throw err;
            }
          },
          async return(value?: unknown) {
            call.end();
            return inner.return ? inner.return(value) : { done: true, value };
          },
          async throw(err?: unknown) {
            call.fail(err);
            if (inner.throw) return inner.throw(err);
            throw err;
          },
          [Symbol.asyncIterator]() {
            return tap;
          },
        };
        return tap;
      },
    });
  }

  private readChunk(chunk: unknown): void {
    try {
      for (const reader of this.readers) reader.readChunk(chunk, this.measure);
    } catch {}
  }

  private end(): void {
    if (this.finished) return;
    this.finished = true;
    this.finish(this.measure, this.elapsed());
  }

  /** Milliseconds since the call was made, to the microsecond. */
  private elapsed(): number {
    return Math.max(0, Math.round((performance.now() - this.startedAt) * 1_000) / 1_000);
  }
}

export function describeError(err: unknown): string {
  let text: string;
  if (err instanceof Error) {
    const name =
      err.constructor?.name && err.constructor.name !== 'Error' ? err.constructor.name : err.name;
    text = `${name}: ${err.message}`;
  } else {
    text = String(err);
  }
  return text.length > MAX_ERROR_LENGTH ? `${text.slice(0, MAX_ERROR_LENGTH - 1)}…` : text;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function'
  );
}
