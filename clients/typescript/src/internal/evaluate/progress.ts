import type { EvaluationProgress } from '../../evaluation.ts';
import type { ProgressOutput } from '../platform.ts';

/** A terminal line is redrawn at most this often (the last result always redraws it). */
const REDRAW_MS = 100;

export interface ProgressOptions {
  experiment: string;
  total: number;
  /** A terminal, or null: then no line is drawn. */
  output: ProgressOutput | null;
  onProgress: ((progress: EvaluationProgress) => void) | undefined;
  /** Milliseconds from any origin. */
  now: () => number;
  /** Told once when `onProgress` throws; the evaluation goes on. */
  warn: (message: string) => void;
}

/**
 * Counts finished results for `onProgress` and, on a terminal, redraws one line:
 * `evaluate <experiment>: 37/120 (31%), ETA 12s`.
 */
export class ProgressReporter {
  private done = 0;
  private readonly startedAt: number;
  private drawnAt: number | null = null;
  private callbackFailed = false;

  constructor(private readonly options: ProgressOptions) {
    this.startedAt = options.now();
    if (options.total > 0) this.draw();
  }

  step(): void {
    this.done++;
    const { onProgress, total } = this.options;
    if (onProgress !== undefined) {
      try {
        onProgress({ done: this.done, total });
      } catch (err) {
        if (!this.callbackFailed) this.options.warn(`evaluate: onProgress threw: ${String(err)}`);
        this.callbackFailed = true;
      }
    }
    const now = this.options.now();
    if (this.done >= total || this.drawnAt === null || now - this.drawnAt >= REDRAW_MS) this.draw();
  }

  /** Ends the line, so that what the terminal prints next starts on its own. */
  finish(): void {
    if (this.drawnAt !== null) this.options.output?.write('\n');
  }

  /** The line as it reads now. */
  line(): string {
    const { experiment, total } = this.options;
    const percent = total === 0 ? 100 : Math.floor((this.done / total) * 100);
    let text = `evaluate ${experiment}: ${this.done}/${total} (${percent}%)`;
    if (this.done > 0 && this.done < total) {
      const perResult = (this.options.now() - this.startedAt) / this.done;
      text += `, ETA ${Math.ceil((perResult * (total - this.done)) / 1_000)}s`;
    }
    return text;
  }

  private draw(): void {
    const { output } = this.options;
    if (output === null) return;
    this.drawnAt = this.options.now();
    // Back to the line's start, the new text, then erase what a longer old line left.
    output.write(`\r${this.line()}\u001b[K`);
  }
}
