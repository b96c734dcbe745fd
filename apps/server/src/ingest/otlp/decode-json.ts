import type { TimeSlice } from '../../kernel/time-slice.ts';
import { ArrayCursor } from '../import/json-array.ts';
import {
  CLOSE_BRACE,
  CLOSE_BRACKET,
  COLON,
  COMMA,
  OPEN_BRACE,
  OPEN_BRACKET,
  QUOTE,
} from '../import/json-bytes.ts';
import { ImportFormatError } from '../import/types.ts';
import type { IngestError } from '../outcomes.ts';
import { OTLP_MAX_SPANS } from './limits.ts';
import { type SpanCollector, tooManySpans } from './span-collector.ts';
import { unreadable } from './span-of.ts';

type Json = Record<string, unknown>;

/** What a walk hands its spans to: the collector, or a counter that parses none. */
type SpanSink = Pick<SpanCollector, 'count' | 'next' | 'add' | 'setResource'>;

/**
 * Counts the spans of a walk that parses nothing: a first pass refuses an export over the
 * span limit before any span is parsed, as the protobuf path counts its spans on the wire.
 */
class SpanCounter implements SpanSink {
  count = 0;

  constructor(readonly slice: TimeSlice) {}

  async next(): Promise<void> {
    if (++this.count > OTLP_MAX_SPANS) throw tooManySpans();
    if (this.slice.due) await this.slice.pause();
  }

  add(): void {}

  setResource(): void {}
}

/**
 * Walks OTLP JSON down to its spans without parsing the whole body at once: the objects above
 * the spans member by member, each span (and each other member) parsed alone by JSON.parse,
 * or, `counting`, only skipped over. A span is counted before it is parsed, and the loop is
 * handed back between spans.
 */
class JsonWalk {
  readonly c: ArrayCursor;

  constructor(
    readonly text: string,
    readonly out: SpanSink,
    readonly counting = false,
  ) {
    this.c = new ArrayCursor(text);
  }

  invalid(what: string): IngestError {
    return unreadable(`The body is not valid JSON: ${what} (line ${this.c.line})`);
  }

  /** The members of the object the cursor stands on (at its `{`), leaving it past the `}`. */
  async members(visit: (key: string) => Promise<void> | void): Promise<void> {
    const c = this.c;
    c.pos++;
    c.skipWhitespace();
    if (c.peek() === CLOSE_BRACE) {
      c.pos++;
      return;
    }
    for (;;) {
      c.skipWhitespace();
      if (c.peek() !== QUOTE) throw this.invalid('expected a member name');
      const start = c.pos;
      c.skipString();
      const key = JSON.parse(this.text.slice(start, c.pos)) as string;
      c.skipWhitespace();
      if (c.peek() !== COLON)
        throw this.invalid(`expected ':' after the name ${JSON.stringify(key)}`);
      c.pos++;
      c.skipWhitespace();
      await visit(key);
      c.skipWhitespace();
      const next = c.peek();
      c.pos++;
      if (next === CLOSE_BRACE) return;
      if (next !== COMMA) throw this.invalid("expected ',' or '}' after a member");
    }
  }

  /**
   * The value the cursor stands on, parsed; it ends at a `,` or at the unmatched `closer`.
   * Counting, only a `null` is read (it stands for an empty array); anything else is skipped.
   */
  value(closer: number): unknown {
    const start = this.c.pos;
    this.c.skipElement(this.c.line, closer);
    if (!this.counting) return JSON.parse(this.text.slice(start, this.c.pos));
    return this.c.pos - start <= 16 && this.text.slice(start, this.c.pos).trim() === 'null'
      ? null
      : undefined;
  }

  /** The objects of the array member `key` the cursor stands on; null is an empty array. */
  async elements(path: string, key: string, visit: (i: number) => Promise<void>): Promise<void> {
    const c = this.c;
    if (c.peek() !== OPEN_BRACKET) {
      if (this.value(CLOSE_BRACE) === null) return;
      throw unreadable(`${path}.${key}: is not an array`);
    }
    c.pos++;
    c.skipWhitespace();
    if (c.peek() === CLOSE_BRACKET) {
      c.pos++;
      return;
    }
    for (let i = 0; ; i++) {
      c.skipWhitespace();
      if (c.peek() !== OPEN_BRACE) throw unreadable(`${path}.${key}[${i}]: is not an object`);
      await visit(i);
      c.skipWhitespace();
      const next = c.peek();
      c.pos++;
      if (next === CLOSE_BRACKET) return;
      if (next !== COMMA) throw this.invalid("expected ',' or ']' after an element");
    }
  }

  async scopeSpans(at: string): Promise<void> {
    await this.members(async (key) => {
      if (key !== 'spans') return void this.value(CLOSE_BRACE);
      await this.elements(at, 'spans', async (i) => {
        await this.out.next();
        this.out.add(this.value(CLOSE_BRACKET) as Json, `${at}.spans[${i}]`);
      });
    });
  }

  async resourceSpans(at: string): Promise<void> {
    const first = this.out.count;
    const holder: Json = {};
    await this.members(async (key) => {
      if (key === 'resource') holder.resource = this.value(CLOSE_BRACE);
      else if (key === 'scopeSpans') {
        await this.elements(at, 'scopeSpans', (s) => this.scopeSpans(`${at}.scopeSpans[${s}]`));
      } else this.value(CLOSE_BRACE);
    });
    this.out.setResource(first, holder, at);
  }

  async request(): Promise<void> {
    const c = this.c;
    c.skipWhitespace();
    if (c.done) throw this.invalid('the body is empty');
    if (c.peek() !== OPEN_BRACE) {
      throw unreadable('The body is not an OTLP ExportTraceServiceRequest object');
    }
    await this.members(async (key) => {
      if (key !== 'resourceSpans') return void this.value(CLOSE_BRACE);
      await this.elements('request', 'resourceSpans', (r) =>
        this.resourceSpans(`resourceSpans[${r}]`),
      );
    });
    c.skipWhitespace();
    if (!c.done) throw this.invalid("unexpected text after the closing '}'");
  }
}

/**
 * The spans of an OTLP JSON ExportTraceServiceRequest, into `out`: first counted by a walk that
 * parses nothing (an export over the span limit is refused before any span is parsed), then
 * walked again, each span parsed.
 */
export async function jsonSpans(body: Buffer, out: SpanCollector): Promise<void> {
  const text = body.toString('utf8');
  try {
    await new JsonWalk(text, new SpanCounter(out.slice), true).request();
    await new JsonWalk(text, out).request();
  } catch (error) {
    if (error instanceof ImportFormatError || error instanceof SyntaxError) {
      throw unreadable(`The body is not valid JSON: ${error.message}`);
    }
    throw error;
  }
}
