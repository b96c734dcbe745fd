// Constructs that JavaScript RegExp, Python `re` and java.util.regex read differently, or that
// only one of them accepts. A pattern without them means the same in all three on ASCII text;
// the differences that remain depend on the text searched (docs/wire-format.md#regular-expressions).

const CLASS_ESCAPES = 'dDwWsS';
const ESCAPES = `${CLASS_ESCAPES}bBnrtf`;
const QUANTIFIER = /^\{[0-9]+(?:,[0-9]*)?\}/;
const HEX = /^[0-9A-Fa-f]+$/;

/** A character class's members, in order: a character, a class escape (`\d`), or a bare `-`. */
type ClassAtom = 'char' | 'class' | 'dash';

/**
 * Why the pattern would not mean the same in every client, or undefined when it would. Such a
 * pattern is unreadable in every evaluator (regex-cache.ts), and the save-time check says why.
 */
export function nonPortableConstruct(pattern: string): string | undefined {
  let inClass = false;
  let atoms: ClassAtom[] = [];
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!;
    if (ch === '\\') {
      const escaped = readEscape(pattern, i, inClass);
      if (typeof escaped === 'string') return escaped;
      if (escaped === null) return undefined; // a trailing backslash is invalid everywhere
      if (inClass) atoms.push(escaped.atom);
      i = escaped.end - 1;
      continue;
    }
    if (inClass) {
      if (ch === '[') return '"[" inside a character class (Java reads a union): write "\\["';
      if (ch === '&' && pattern[i + 1] === '&') {
        return '"&&" inside a character class (Java reads an intersection)';
      }
      if (ch === ']') {
        inClass = false;
        const problem = classEscapeRange(atoms);
        if (problem !== undefined) return problem;
      } else {
        atoms.push(ch === '-' ? 'dash' : 'char');
      }
      continue;
    }
    const outside = readOutsideClass(pattern, i);
    if (typeof outside === 'string') return outside;
    if (pattern[i] === '[') {
      inClass = true;
      atoms = [];
    }
    i = outside - 1;
  }
  return undefined;
}

/**
 * The escape whose backslash is at `at`: where it ends and what a class holds for it, why it is
 * not portable, or null when the pattern ends at the backslash.
 */
function readEscape(
  pattern: string,
  at: number,
  inClass: boolean,
): { end: number; atom: ClassAtom } | string | null {
  const next = pattern[at + 1];
  if (next === undefined) return null;
  if (next >= '0' && next <= '9') {
    return `\\${next}: backreferences and octal escapes are read differently`;
  }
  if (/[A-Za-z]/.test(next)) {
    if (next === 'x' || next === 'u') {
      const digits = next === 'x' ? 2 : 4;
      const hex = pattern.slice(at + 2, at + 2 + digits);
      if (hex.length !== digits || !HEX.test(hex)) {
        return `\\${next} must be followed by ${digits} hexadecimal digits`;
      }
      return { end: at + 2 + digits, atom: 'char' };
    }
    if (
      inClass ? !CLASS_ESCAPES.includes(next) && !'nrtf'.includes(next) : !ESCAPES.includes(next)
    ) {
      return `\\${next} is not an escape every client reads alike`;
    }
    return { end: at + 2, atom: CLASS_ESCAPES.includes(next) ? 'class' : 'char' };
  }
  if (next.charCodeAt(0) > 0x7f) return 'a backslash before a non-ASCII character';
  return { end: at + 2, atom: 'char' };
}

/**
 * Outside a class, the construct at `at` that is not an escape: where it ends (past a class's
 * opening, a group's `(?x`, a quantifier's braces), or why it is not portable.
 */
function readOutsideClass(pattern: string, at: number): number | string {
  const ch = pattern[at];
  if (ch === '[') {
    let j = at + 1;
    if (pattern[j] === '^') j++;
    if (pattern[j] === ']') return 'a character class opening with "]" ("[]", "[^]")';
    return j;
  }
  if (ch === '(' && pattern[at + 1] === '?') {
    const kind = pattern[at + 2];
    if (kind !== ':' && kind !== '=' && kind !== '!') {
      return '"(?" other than "(?:", "(?=" or "(?!" (named groups, lookbehind, inline flags)';
    }
    return at + 3;
  }
  if (ch === '{') {
    const quantifier = QUANTIFIER.exec(pattern.slice(at));
    if (quantifier === null)
      return 'a "{" that is not a quantifier {n}, {n,} or {n,m}: write "\\{"';
    return at + quantifier[0].length;
  }
  return at + 1;
}

/**
 * A range with a class escape as an end (`[\d-z]`, `[a-\d]`): JavaScript reads its `-` as a
 * literal, Python's `re` refuses it. Ranges are read left to right, as all three read them, so
 * in `[a-b-\d]` the second `-` is a literal after the range `a-b`.
 */
function classEscapeRange(atoms: readonly ClassAtom[]): string | undefined {
  let k = 0;
  while (k < atoms.length) {
    if (atoms[k + 1] === 'dash' && k + 2 < atoms.length) {
      if (atoms[k] === 'class' || atoms[k + 2] === 'class') {
        return 'a range with a class escape as an end ("[\\d-z]"): write "\\-" for a literal "-"';
      }
      k += 3;
    } else {
      k++;
    }
  }
  return undefined;
}
