import { appendFile, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { OfflineStore } from './offline-store.ts';
import type { ArbiterEvent } from './wire.ts';

/**
 * Spilled events as newline-delimited JSON, oldest first. Appends go to the end of the file;
 * removals rewrite it through a temporary file and a rename, so a crash leaves the old file or
 * the new one, never half of one. A line cut short by a crash mid-append is skipped on load,
 * and the next append starts on a line of its own so the first event after it is not lost.
 * One client per file: the in-memory copy is the truth while the process runs.
 */
export class FileOfflineStore implements OfflineStore {
  private events: ArbiterEvent[] | null = null;
  /** The file may end in a torn line: the next append must start on a line of its own. */
  private tornTail = false;
  /** Operations run one at a time, in call order, so an append never races a rewrite. */
  private tail: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly path: string,
    private readonly capacity: number,
  ) {}

  append(events: readonly ArbiterEvent[]): Promise<number> {
    return this.serial(async () => {
      const held = await this.load();
      const overflow = Math.max(0, held.length + events.length - this.capacity);
      // The file is written first: memory never holds an event the file lost.
      if (overflow > 0) {
        const next = [...held, ...events].slice(overflow);
        await this.rewrite(next);
        this.events = next;
      } else {
        await mkdir(dirname(this.path), { recursive: true });
        const lines = (this.tornTail ? '\n' : '') + toLines(events);
        // A failed append may have written part of a line; an empty line costs nothing on load.
        this.tornTail = true;
        await appendFile(this.path, lines, { mode: 0o600 });
        this.tornTail = false;
        held.push(...events);
      }
      return overflow;
    });
  }

  peek(limit: number): Promise<ArbiterEvent[]> {
    return this.serial(async () => (await this.load()).slice(0, limit));
  }

  remove(eventIds: readonly string[]): Promise<void> {
    return this.serial(async () => {
      const gone = new Set(eventIds);
      const held = await this.load();
      const kept = held.filter((e) => !gone.has(e.event_id));
      if (kept.length === held.length) return;
      await this.rewrite(kept);
      this.events = kept;
    });
  }

  private serial<T>(op: () => Promise<T>): Promise<T> {
    const run = this.tail.then(op, op);
    this.tail = run.catch(() => undefined);
    return run;
  }

  private async load(): Promise<ArbiterEvent[]> {
    if (this.events !== null) return this.events;
    let text = '';
    try {
      text = await readFile(this.path, 'utf8');
    } catch (err) {
      if ((err as { code?: unknown }).code !== 'ENOENT') throw err;
    }
    this.tornTail = text !== '' && !text.endsWith('\n');
    const events: ArbiterEvent[] = [];
    for (const line of text.split('\n')) {
      if (line === '') continue;
      try {
        const event = JSON.parse(line) as ArbiterEvent;
        if (typeof event?.event_id === 'string') events.push(event);
      } catch {}
    }
    this.events = events;
    return events;
  }

  private async rewrite(events: readonly ArbiterEvent[]): Promise<void> {
    await mkdir(dirname(this.path), { recursive: true });
    const temporary = `${this.path}.${process.pid}.tmp`;
    await writeFile(temporary, toLines(events), { mode: 0o600 });
    await rename(temporary, this.path);
    this.tornTail = false;
  }
}

function toLines(events: readonly ArbiterEvent[]): string {
  let out = '';
  for (const e of events) out += `${JSON.stringify(e)}\n`;
  return out;
}
