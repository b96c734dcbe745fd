/** What one judge call came to; expected failures are values so a run keeps going past them. */
import type { JudgeOutcome } from '../../kernel/ports.ts';

const FENCE = /^```(?:json)?\s*([\s\S]*?)\s*```$/i;
const FLAT_OBJECT = /\{[^{}]*\}/g;

function candidates(content: string): string[] {
  const trimmed = content.trim();
  const unfenced = FENCE.exec(trimmed)?.[1] ?? trimmed;
  // Models often wrap the JSON in prose; any flat object in the text may be the answer.
  return [unfenced, ...(unfenced.match(FLAT_OBJECT) ?? [])];
}

function parseObject(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/**
 * Reads `{"score": x}` out of a model's answer. The first object carrying `score` decides:
 * a number is clamped to [0, 1] (models drift past the bounds), anything else is a failure
 * rather than a guess.
 */
export function parseScore(content: string | null | undefined): JudgeOutcome {
  if (content === null || content === undefined || content.trim() === '') {
    return { ok: false, reason: 'the judge answered with no content' };
  }
  for (const text of candidates(content)) {
    const object = parseObject(text);
    if (object === null || !('score' in object)) continue;
    const score = object.score;
    if (typeof score !== 'number' || !Number.isFinite(score)) {
      return { ok: false, reason: `the judge's score is not a number: ${JSON.stringify(score)}` };
    }
    return { ok: true, score: Math.min(1, Math.max(0, score)) };
  }
  return {
    ok: false,
    reason: `the judge did not answer with JSON {"score": ...}: ${content.slice(0, 200)}`,
  };
}
