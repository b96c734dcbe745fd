// Which patterns an evaluator may run without risking catastrophic backtracking, and how long a
// text a pattern may search. The rule is syntactic, so every evaluator (this one, Python's `re`,
// java.util.regex) draws the same line without running anything
// (docs/wire-format.md#regular-expressions).

/** A string value longer than this, in code points, never matches a pattern. */
export const MAX_PATTERN_SUBJECT = 1024;

const QUANTIFIER = /^\{([0-9]+)(?:(,)([0-9]*))?\}/;

/** What a group holds, at any depth: a quantified atom, an alternation. */
interface Group {
  quantifier: boolean;
  alternation: boolean;
}

/** The quantifier starting at `at`: its length and whether it allows two or more repetitions. */
function quantifierAt(pattern: string, at: number): { length: number; repeats: boolean } | null {
  const ch = pattern[at];
  if (ch === '*' || ch === '+') return { length: 1, repeats: true };
  if (ch === '?') return { length: 1, repeats: false };
  if (ch !== '{') return null;
  const braces = QUANTIFIER.exec(pattern.slice(at, at + 40));
  if (braces === null) return null; // a literal "{" (JavaScript reads it so)
  const [text, min, comma, max] = braces;
  const most = comma === undefined ? Number(min) : max === '' ? Infinity : Number(max);
  return { length: text.length, repeats: most >= 2 };
}

/** Where the character class opening at `at` ends (its `]`), escapes skipped. */
function classEnd(pattern: string, at: number): number {
  let i = at + 1;
  while (i < pattern.length && pattern[i] !== ']') i += pattern[i] === '\\' ? 2 : 1;
  return i;
}

/**
 * Why running the pattern could backtrack exponentially, or undefined when it cannot by this
 * rule: a group repeated by `*`, `+`, `{n,}` or `{n,m}`/`{n}` with a maximum of 2 or more holds,
 * at any depth, a quantifier (`*`, `+`, `?`, `{…}`) or an alternation (`|`). Escaped characters
 * and characters in a class never count. An invalid pattern gets an answer too, never an error.
 */
export function unsafePattern(pattern: string): string | undefined {
  const open: Group[] = [{ quantifier: false, alternation: false }];
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i] as string;
    const top = open[open.length - 1] as Group;
    if (ch === '\\') i++;
    else if (ch === '[') i = classEnd(pattern, i);
    else if (ch === '|') top.alternation = true;
    else if (ch === '(') {
      open.push({ quantifier: false, alternation: false });
      if (pattern[i + 1] === '?') i++; // "(?:", "(?=", "(?!": the "?" is no quantifier
    } else if (ch === ')' && open.length > 1) {
      open.pop();
      const inner = top;
      const outer = open[open.length - 1] as Group;
      const quantifier = quantifierAt(pattern, i + 1);
      if (quantifier?.repeats) {
        if (inner.quantifier) return 'a repeated group holds a quantifier';
        if (inner.alternation) return 'a repeated group holds an alternation';
      }
      outer.quantifier ||= inner.quantifier || quantifier !== null;
      outer.alternation ||= inner.alternation;
      if (quantifier !== null) i += quantifier.length - 1;
    } else {
      const quantifier = quantifierAt(pattern, i);
      if (quantifier !== null) {
        top.quantifier = true;
        i += quantifier.length - 1;
      }
    }
  }
  return undefined;
}

/** Whether a pattern may search the text: no more than MAX_PATTERN_SUBJECT code points. */
export function searchable(text: string): boolean {
  if (text.length <= MAX_PATTERN_SUBJECT) return true;
  if (text.length > 2 * MAX_PATTERN_SUBJECT) return false;
  let codePoints = 0;
  for (const _ of text) codePoints++;
  return codePoints <= MAX_PATTERN_SUBJECT;
}
