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
 * Why the pattern would not mean the same in every client, or undefined when it would. Only
 * the server's save-time check asks: an evaluator runs any pattern its own engine accepts.
 */
export function nonPortableConstruct(pattern: string): string | undefined {
  let inClass = false;
  let atoms: ClassAtom[] = [];
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!;
    if (ch === '\\') {
      const next = pattern[i + 1];
      if (next === undefined) return undefined; // a trailing backslash is invalid everywhere
      if (next >= '0' && next <= '9') {
        return `\\${next}: backreferences and octal escapes are read differently`;
      }
      if (/[A-Za-z]/.test(next)) {
        if (next === 'x' || next === 'u') {
          const digits = next === 'x' ? 2 : 4;
          const hex = pattern.slice(i + 2, i + 2 + digits);
          if (hex.length !== digits || !HEX.test(hex)) {
            return `\\${next} must be followed by ${digits} hexadecimal digits`;
          }
          i += 1 + digits;
          if (inClass) atoms.push('char');
          continue;
        }
        if (
          inClass
            ? !CLASS_ESCAPES.includes(next) && !'nrtf'.includes(next)
            : !ESCAPES.includes(next)
        ) {
          return `\\${next} is not an escape every client reads alike`;
        }
        i++;
        if (inClass) atoms.push(CLASS_ESCAPES.includes(next) ? 'class' : 'char');
        continue;
      }
      if (next.charCodeAt(0) > 0x7f) return 'a backslash before a non-ASCII character';
      i++;
      if (inClass) atoms.push('char');
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
    if (ch === '[') {
      inClass = true;
      atoms = [];
      let j = i + 1;
      if (pattern[j] === '^') j++;
      if (pattern[j] === ']') return 'a character class opening with "]" ("[]", "[^]")';
      i = j - 1;
      continue;
    }
    if (ch === '(' && pattern[i + 1] === '?') {
      const kind = pattern[i + 2];
      if (kind !== ':' && kind !== '=' && kind !== '!') {
        return '"(?" other than "(?:", "(?=" or "(?!" (named groups, lookbehind, inline flags)';
      }
      i += 2;
      continue;
    }
    if (ch === '{') {
      const quantifier = QUANTIFIER.exec(pattern.slice(i));
      if (quantifier === null)
        return 'a "{" that is not a quantifier {n}, {n,} or {n,m}: write "\\{"';
      i += quantifier[0].length - 1;
    }
  }
  return undefined;
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
