import builtIn from './prices.json' with { type: 'json' };

/** One price row: US dollars per million tokens of each kind, from a UTC day on. */
export interface PriceRow {
  pattern: string;
  effective_from: string;
  currency: 'USD';
  input_per_million: number;
  output_per_million: number;
  /** Null: cached input costs what other input costs. */
  cached_input_per_million: number | null;
  /** Null: reasoning costs what other output costs. */
  reasoning_per_million: number | null;
  source: string | null;
  /** Who sells it, in the built-in table (`openai`, `meta on groq`). */
  provider?: string;
}

/** A row with where it comes from and the name a priced call keeps of it (`priced_by`). */
export interface RankedRow extends PriceRow {
  origin: 'builtin' | 'org';
  ref: string;
  effectiveMs: number;
}

/** A model call's token counts; the cached and reasoning counts are parts of input and output. */
export interface TokenCounts {
  input_tokens?: number | undefined;
  output_tokens?: number | undefined;
  cached_input_tokens?: number | undefined;
  reasoning_tokens?: number | undefined;
}

/**
 * What may follow a pattern in a model's name and still be the same model: a dated or numbered
 * snapshot (`-2024-08-06`, `-20241022`, `-2411`, `-002`), `-latest`, and a host's version
 * (`-v1:0` on Bedrock). Never a word: `gpt-4o` is not `gpt-4o-mini`.
 */
const SNAPSHOT = /^(?:-\d{4}-\d{2}-\d{2}|-\d{8}|-\d{4}|-\d{3}|-latest)?(?:-v\d+(?::\d+)?)?$/;

/**
 * Whether `pattern` names the model `name` (lower case). A pattern without a slash also matches
 * the name's last path segment, so `openai/gpt-4o` and Google's `models/gemini-2.0-flash` find
 * their rows.
 */
export function patternMatches(pattern: string, name: string): boolean {
  const tail = name.slice(name.lastIndexOf('/') + 1);
  const names = pattern.includes('/') || tail === name ? [name] : [name, tail];
  return names.some((n) => n.startsWith(pattern) && SNAPSHOT.test(n.slice(pattern.length)));
}

export function rowRef(origin: RankedRow['origin'], row: PriceRow): string {
  return `${origin}:${row.pattern}@${row.effective_from}`;
}

export function ranked(origin: RankedRow['origin'], row: PriceRow): RankedRow {
  return {
    ...row,
    origin,
    ref: rowRef(origin, row),
    effectiveMs: Date.parse(`${row.effective_from}T00:00:00Z`),
  };
}

/** The table shipped with the server (prices.json), each row with its source. */
export const BUILT_IN_ROWS: readonly RankedRow[] = (builtIn.rows as PriceRow[]).map((row) =>
  ranked('builtin', row),
);

/** The row among `rows` for `name` at `atMs`: the longest matching pattern, then the latest in effect. */
function bestOf(rows: readonly RankedRow[], name: string, atMs: number): RankedRow | null {
  let best: RankedRow | null = null;
  for (const row of rows) {
    if (row.effectiveMs > atMs || !patternMatches(row.pattern, name)) continue;
    if (
      best === null ||
      row.pattern.length > best.pattern.length ||
      (row.pattern.length === best.pattern.length && row.effectiveMs > best.effectiveMs)
    )
      best = row;
  }
  return best;
}

/**
 * An org's prices: its own rows over the built-in table. The org's row in effect wins, so an
 * override takes over from its effective date and a call before it keeps the built-in price.
 */
export class PriceBook {
  constructor(
    private readonly orgRows: readonly RankedRow[],
    private readonly builtInRows: readonly RankedRow[] = BUILT_IN_ROWS,
  ) {}

  rowFor(model: string, atMs: number): RankedRow | null {
    const name = model.trim().toLowerCase();
    return bestOf(this.orgRows, name, atMs) ?? bestOf(this.builtInRows, name, atMs);
  }
}

/** The call's cost in US dollars: each kind of token at its own rate, parts out of their wholes. */
export function costOf(row: PriceRow, tokens: TokenCounts): number {
  const cached = tokens.cached_input_tokens ?? 0;
  const reasoning = tokens.reasoning_tokens ?? 0;
  const input = (tokens.input_tokens ?? 0) - cached;
  const output = (tokens.output_tokens ?? 0) - reasoning;
  const dollars =
    input * row.input_per_million +
    cached * (row.cached_input_per_million ?? row.input_per_million) +
    output * row.output_per_million +
    reasoning * (row.reasoning_per_million ?? row.output_per_million);
  return dollars / 1_000_000;
}
