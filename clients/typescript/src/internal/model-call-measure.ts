/** What a model call reports, gathered from the provider's response or stream. */
export interface CallMeasure {
  model?: string;
  input_tokens?: number;
  output_tokens?: number;
  /** Error class and message when the call failed; null when it succeeded. */
  error?: string | null;
}

/** Reads one provider's response shapes. Readers ignore shapes that are not theirs. */
export interface ProviderReader {
  /** A complete, non-streamed response. */
  readResult(result: unknown, into: CallMeasure): void;
  /** One item of a streamed response. */
  readChunk(chunk: unknown, into: CallMeasure): void;
}

export type Json = Record<string, unknown>;

export function asObject(value: unknown): Json | null {
  return typeof value === 'object' && value !== null ? (value as Json) : null;
}

/** Sets a count when the provider sent one; later values win because stream counts are cumulative. */
export function setCount(
  into: CallMeasure,
  field: 'input_tokens' | 'output_tokens',
  value: unknown,
) {
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) into[field] = value;
}

export function setModel(into: CallMeasure, value: unknown) {
  if (typeof value === 'string' && value !== '') into.model = value;
}
