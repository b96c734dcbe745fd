import { diffLines } from 'diff';
import type { PromptVersion } from '../../api/client.ts';

/** One line of a diff: kept, or only in the older (`removed`) or the newer (`added`) version. */
export interface DiffLine {
  kind: 'same' | 'added' | 'removed';
  text: string;
}

/**
 * A version's template as lines: the text as written, or each chat message as a `[role]` line
 * followed by its content, a blank line between messages. A text and a chat version compare
 * in the same form, so a switch from one to the other reads as what changed.
 */
export function templateText(v: PromptVersion): string {
  if (v.text !== undefined) return v.text;
  return (v.messages ?? []).map((m) => `[${m.role}]\n${m.content}`).join('\n\n');
}

/** Keys in order at every depth, so two settings differ only where their values do. */
function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) =>
    a < b ? -1 : a > b ? 1 : 0,
  );
  return Object.fromEntries(entries.map(([k, v]) => [k, sorted(v)]));
}

/** The declared variables and the model settings as indented JSON with sorted keys. */
export function settingsText(v: PromptVersion): string {
  return JSON.stringify(
    sorted({ variables: v.variables, model_settings: v.model_settings ?? {} }),
    null,
    2,
  );
}

/**
 * A line diff (jsdiff's `diffLines`) of two texts, one entry per line. Both end in a newline
 * before the diff, so a line added after an unterminated last one does not mark that one changed.
 */
export function lineDiff(older: string, newer: string): DiffLine[] {
  const lines: DiffLine[] = [];
  for (const part of diffLines(`${older}\n`, `${newer}\n`)) {
    const kind = part.added ? 'added' : part.removed ? 'removed' : 'same';
    const body = part.value.endsWith('\n') ? part.value.slice(0, -1) : part.value;
    for (const text of body.split('\n')) lines.push({ kind, text });
  }
  return lines;
}

/** Whether a diff changes anything. */
export const changed = (lines: DiffLine[]) => lines.some((l) => l.kind !== 'same');
