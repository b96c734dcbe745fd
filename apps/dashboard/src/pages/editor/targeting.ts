import {
  type ConditionProblem,
  checkCondition,
  evalCondition,
  groupReferences,
  type SavedGroups,
} from '@arbiter/conditions';

/**
 * What the targeting box holds, read as the server will read it: nothing (everyone may enter),
 * text that is no JSON object, or a condition with the problems that would make the save fail.
 */
export type TargetingReading =
  | { kind: 'everyone' }
  | { kind: 'unparsable'; message: string }
  | {
      kind: 'condition';
      condition: Record<string, unknown>;
      /** Whether this evaluator can read it (else it matches no one, whatever the attributes). */
      readable: boolean;
      /** Each problem the save would be refused for, with its pointer into the condition. */
      problems: ConditionProblem[];
    };

export interface GroupSummary {
  key: string;
  values: ReadonlyArray<string | number>;
}

/**
 * The box's text, checked with the server's own save-time check (`checkCondition`), plus the saved groups it names that the org does not have (the server refuses
 * those too: a typo would leave everyone out silently). `groups` is null while they load.
 */
export function readTargeting(
  text: string,
  groups: readonly GroupSummary[] | null,
): TargetingReading {
  const parsed = parseObject(text, 'The condition is');
  if (parsed.kind === 'unparsable') return parsed;
  if (parsed.kind === 'blank' || Object.keys(parsed.value).length === 0)
    return { kind: 'everyone' };
  const condition = parsed.value;
  const problems = checkCondition(condition);
  const readable = problems.length === 0;
  if (problems.length === 0 && groups !== null) {
    const known = new Set(groups.map((g) => g.key));
    for (const ref of groupReferences(condition))
      if (!known.has(ref.key))
        problems.push({ pointer: ref.pointer, message: `no saved group has the key "${ref.key}"` });
  }
  return { kind: 'condition', condition, readable, problems };
}

/** What the sample box holds: attributes, or why they cannot be read. Empty reads as `{}`. */
export type AttributesReading =
  | { kind: 'object'; value: Record<string, unknown> }
  | { kind: 'unparsable'; message: string };

export function readAttributes(text: string): AttributesReading {
  const parsed = parseObject(text, 'The attributes are');
  return parsed.kind === 'blank' ? { kind: 'object', value: {} } : parsed;
}

/** The live check's line: whether the sample user would enter, and what to fix when unknown. */
export interface Verdict {
  matches: boolean | null;
  text: string;
}

export function verdict(
  targeting: TargetingReading,
  attributes: AttributesReading,
  groups: SavedGroups | null,
): Verdict {
  if (targeting.kind === 'unparsable')
    return { matches: null, text: 'no answer: the condition is not a JSON object yet' };
  if (attributes.kind === 'unparsable') {
    const why = attributes.message;
    return { matches: null, text: `no answer: ${why.charAt(0).toLowerCase()}${why.slice(1)}` };
  }
  if (targeting.kind === 'everyone') return matched('no targeting, everyone may enter');
  if (groups === null) return { matches: null, text: 'no answer yet: loading the saved groups' };
  // What every client does with this condition, readable or not: an unreadable one matches no one.
  const matches = evalCondition(attributes.value, targeting.condition, groups);
  if (matches) return matched(null);
  const why = targeting.readable ? '' : ' (an unreadable condition matches no one)';
  return { matches: false, text: `does not match: null, no exposure${why}` };
}

function matched(why: string | null): Verdict {
  return { matches: true, text: `matches: this user may enter${why ? ` (${why})` : ''}` };
}

/** Saved groups as the config ships them to the clients: each key to its values. */
export function savedGroupsByKey(groups: readonly GroupSummary[]): SavedGroups {
  return Object.fromEntries(groups.map((g) => [g.key, g.values]));
}

/** The condition's stored form as the box shows it; no targeting is an empty box. */
export const targetingText = (targeting: Record<string, unknown> | undefined): string =>
  targeting && Object.keys(targeting).length > 0 ? JSON.stringify(targeting, null, 2) : '';

type ObjectReading =
  | { kind: 'blank' }
  | { kind: 'unparsable'; message: string }
  | { kind: 'object'; value: Record<string, unknown> };

/**
 * Blank text is no object at all; anything else must be one JSON object. `what` starts the
 * sentence that says why not ("The condition is").
 */
function parseObject(text: string, what: string): ObjectReading {
  if (text.trim() === '') return { kind: 'blank' };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { kind: 'unparsable', message: `${what} not valid JSON (${(e as Error).message})` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { kind: 'unparsable', message: `${what} not a JSON object` };
  return { kind: 'object', value: value as Record<string, unknown> };
}
