// Writes testdata/regex-random.json: 1,000 patterns made from the shared vectors' own (the
// $regex/$regexi operands of testdata/conditions.json and the safe patterns of
// testdata/regex-safety.json), combined and mutated with a fixed seed, each with a few ASCII
// values and whether JavaScript's RegExp finds the pattern in them. Only patterns that JavaScript
// accepts, that pass the safety rule of testdata/regex-safety.json and that mean the same in every
// client (nonPortableConstruct) are kept, so every evaluator must give exactly these answers.
//
//   npx tsx scripts/regex-random.ts        (the same file every run)
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { nonPortableConstruct } from '../packages/conditions/src/regex-portability.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const SEED = 0x5eed_2026;
const COUNT = 1000;
const MAX_SUBJECT_LENGTH = 1024;
const QUANTIFIERS = ['*', '+', '?', '{2}', '{1,3}', '{0,1}', '{2,}', '*?', '+?'];
// Values stay printable ASCII without line breaks: on other text the engines' `.`, `$`, `\s`,
// `\w` and case folding differ, which no save-time check can rule out.
const FILLER = 'abcxyzAB019-_./@$ ';

/** mulberry32: a small PRNG whose sequence depends on the seed alone. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const random = prng(SEED);
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

/** The safety rule of testdata/regex-safety.json, read left to right with a stack of groups. */
export function isSafePattern(pattern: string): boolean {
  const holds: boolean[] = [false];
  let i = 0;
  while (i < pattern.length) {
    const ch = pattern[i]!;
    if (ch === '(') {
      holds.push(false);
      i = groupBody(pattern, i + 1);
      continue;
    }
    if (ch === '|') {
      holds[holds.length - 1] = true;
      i++;
      continue;
    }
    if (ch === ')') {
      const inner = holds.length > 1 ? holds.pop()! : false;
      const q = quantifier(pattern, i + 1);
      if (q !== undefined && inner && q.repeats) return false;
      holds[holds.length - 1] = holds[holds.length - 1]! || inner || q !== undefined;
      i = q === undefined ? i + 1 : q.end;
      continue;
    }
    if (ch === '\\') i += 2;
    else if (ch === '[') i = classEnd(pattern, i);
    else i++;
    const q = quantifier(pattern, i);
    if (q !== undefined) {
      holds[holds.length - 1] = true;
      i = q.end;
    }
  }
  return true;
}

function classEnd(pattern: string, start: number): number {
  let i = start + 1;
  if (pattern[i] === '^') i++;
  while (i < pattern.length) {
    if (pattern[i] === '\\') i += 2;
    else if (pattern[i] === ']') return i + 1;
    else i++;
  }
  return pattern.length;
}

function groupBody(pattern: string, i: number): number {
  if (pattern[i] !== '?') return i;
  const j = i + 1;
  if (pattern[j] === '<' && pattern[j + 1] !== '=' && pattern[j + 1] !== '!') {
    const close = pattern.indexOf('>', j);
    return close < 0 ? pattern.length : close + 1;
  }
  return j + (pattern[j] === '<' ? 2 : 1);
}

function quantifier(pattern: string, i: number): { end: number; repeats: boolean } | undefined {
  const ch = pattern[i];
  let end: number;
  let repeats: boolean;
  if (ch === '*' || ch === '+' || ch === '?') {
    end = i + 1;
    repeats = ch !== '?';
  } else if (ch === '{') {
    const m = /^\{([0-9]+)(,([0-9]*))?\}/.exec(pattern.slice(i));
    if (m === null) return undefined;
    end = i + m[0].length;
    const max = m[2] === undefined ? m[1]! : m[3]!;
    repeats = max === '' || atLeastTwo(max);
  } else {
    return undefined;
  }
  return { end: pattern[end] === '?' ? end + 1 : end, repeats };
}

function atLeastTwo(digits: string): boolean {
  const significant = digits.replace(/^0+/, '');
  return significant.length > 1 || significant >= '2';
}

/** The operands of $regex and $regexi anywhere in a condition. */
function operands(value: unknown, into: string[]): void {
  if (Array.isArray(value)) for (const item of value) operands(item, into);
  else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if ((key === '$regex' || key === '$regexi') && typeof item === 'string') into.push(item);
      operands(item, into);
    }
  }
}

function compiles(pattern: string): boolean {
  try {
    new RegExp(pattern);
    return true;
  } catch {
    return false;
  }
}

/** Patterns every client runs alike: JavaScript accepts them, safe, portable, ASCII only. */
function usable(pattern: string): boolean {
  return (
    /^[\x20-\x7e]*$/.test(pattern) &&
    compiles(pattern) &&
    isSafePattern(pattern) &&
    nonPortableConstruct(pattern) === undefined
  );
}

const strip = (p: string) => p.replace(/^\^/, '').replace(/(?<!\\)\$$/, '');

/** One random combination or mutation of one or two patterns of the pool. */
function mutate(pool: readonly string[]): string {
  const a = pick(pool);
  const b = pick(pool);
  switch (Math.floor(random() * 7)) {
    case 0:
      return `${a}${strip(b)}`;
    case 1:
      return `${a}|${b}`;
    case 2:
      return `(?:${strip(a)})${pick(QUANTIFIERS)}`;
    case 3:
      return `^(${strip(a)})${pick(['', '?', '$'])}`;
    case 4:
      return `${strip(a)}${pick(['[a-c]', '\\d', '.', 'x', '\\.', '[^/]'])}${pick(QUANTIFIERS)}`;
    case 5:
      return `(?:${strip(a)}|${strip(b)})${pick(['', '?', '$', '{1}'])}`;
    default:
      return `${pick(['^', '', '(?=a)', '(?!x)', '\\b'])}${strip(a)}${pick(['', '$', '\\b'])}`;
  }
}

/** The answer every evaluator must give: JavaScript's search, under the length cap. */
function expected(pattern: string, insensitive: boolean, value: string): boolean {
  if ([...value].length > MAX_SUBJECT_LENGTH) return false;
  return new RegExp(pattern, insensitive ? 'i' : '').test(value);
}

/** Literal characters of the pattern (what is left without its syntax), as value material. */
function material(pattern: string): string {
  return pattern.replace(/\\(.)/g, '$1').replace(/[\\^$.*+?()[\]{}|]/g, '');
}

function randomValue(pattern: string, known: readonly string[]): string {
  const letters = material(pattern) + FILLER;
  const kind = random();
  if (kind < 0.3 && known.length > 0) return pick(known);
  if (kind < 0.6) {
    // The pattern's literals, in order, with a few characters changed or added.
    return [...material(pattern)]
      .map((c) => (random() < 0.15 ? pick([...letters]) : c))
      .join('')
      .concat(random() < 0.5 ? '' : pick([...FILLER]));
  }
  const length = Math.floor(random() * 10);
  return Array.from({ length }, () => pick([...letters])).join('');
}

/** Up to four distinct values, matching and not matching where the candidates allow. */
function valuesFor(pattern: string, insensitive: boolean, known: readonly string[]) {
  const seen = new Set<string>();
  const yes: string[] = [];
  const no: string[] = [];
  for (let n = 0; n < 40 && (yes.length < 2 || no.length < 2); n++) {
    const value = randomValue(pattern, known);
    if (seen.has(value) || !/^[\x20-\x7e]*$/.test(value)) continue;
    seen.add(value);
    const into = expected(pattern, insensitive, value) ? yes : no;
    if (into.length < 2) into.push(value);
  }
  return [...yes, ...no].map((value) => ({
    value,
    matches: expected(pattern, insensitive, value),
  }));
}

function main(): void {
  const conditions = JSON.parse(readFileSync(join(root, 'testdata/conditions.json'), 'utf8'));
  const safety = JSON.parse(readFileSync(join(root, 'testdata/regex-safety.json'), 'utf8'));
  // The copy of the rule here answers every vector as the file says, or nothing is written.
  for (const v of safety.patterns as Array<{ pattern: string; safe: boolean }>) {
    if (isSafePattern(v.pattern) !== v.safe) throw new Error(`safety rule differs on ${v.pattern}`);
  }
  const sources: string[] = [];
  operands(conditions.evalCondition, sources);
  for (const p of safety.patterns) if (p.safe) sources.push(p.pattern);
  const pool = [...new Set(sources)].filter(usable);
  const known = [...new Set(safety.evaluations.map((e: { value: string }) => e.value))].filter(
    (v): v is string => typeof v === 'string' && v.length <= 16,
  );
  const patterns: Array<{ pattern: string; insensitive: boolean; values: unknown[] }> = [];
  const made = new Set<string>();
  while (patterns.length < COUNT) {
    const pattern = mutate(random() < 0.2 ? pool : [...pool, ...made]);
    if (made.has(pattern) || pattern.length > 120 || !usable(pattern)) continue;
    made.add(pattern);
    const insensitive = random() < 0.3;
    const values = valuesFor(pattern, insensitive, known);
    // A pattern kept tells a match from a miss: one that matches everything, or nothing the
    // candidates tried, checks too little.
    if (!values.some((v) => v.matches) || values.every((v) => v.matches)) continue;
    patterns.push({ pattern, insensitive, values });
  }
  const doc = {
    description:
      'Generated by scripts/regex-random.ts (fixed seed; run it again for the same file): 1,000 patterns combined and mutated from the $regex operands of testdata/conditions.json and the safe patterns of testdata/regex-safety.json. Each is valid in JavaScript, safe under the rule of testdata/regex-safety.json and portable (no construct the clients read differently), so every evaluator must answer as JavaScript does. insensitive: the operator is $regexi, else $regex. values: attribute values (printable ASCII) and whether the operator matches them, computed by JavaScript RegExp under the rule.',
    seed: SEED,
    patterns,
  };
  // One pattern a line: a change to the generator shows as a readable diff.
  const lines = doc.patterns.map((p) => `  ${JSON.stringify(p)}`).join(',\n');
  const head = JSON.stringify({ description: doc.description, seed: doc.seed }, null, 1).slice(
    0,
    -2,
  );
  writeFileSync(
    join(root, 'testdata/regex-random.json'),
    `${head},\n "patterns": [\n${lines}\n ]\n}\n`,
  );
}

main();
