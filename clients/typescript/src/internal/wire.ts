import type { EventType, TrackPayload } from '../types.ts';

/** One event as sent on the wire. */
export interface ArbiterEvent extends TrackPayload {
  event_id: string;
  type: EventType;
  /** ISO 8601, taken when the event was enqueued; replays keep it. */
  timestamp: string;
}

/** `GET /v1/config` as docs/wire-format.md defines it. */
export interface ConfigDocument {
  config_version: number;
  bucketing_version: string;
  experiments: ExperimentConfig[];
  /** Saved groups by key, for `$inGroup`/`$notInGroup`; absent when the org has none. */
  saved_groups?: Record<string, unknown>;
  /** The org's layers, by `name`; absent when it has none. */
  layers?: WireLayer[];
  /** The org's holdouts, by `id`; absent when it has none. */
  holdouts?: WireHoldout[];
  /** The org's prompts by name (docs/wire-format.md#prompts); absent when it has none. */
  prompts?: Record<string, WirePrompt>;
}

/** A stored prompt: its labels and the versions the config carries, by number. */
export interface WirePrompt {
  labels: Record<string, number>;
  versions: Record<string, WirePromptVersion>;
}

/** One version of a prompt: a text or chat messages. */
export interface WirePromptVersion {
  text?: string;
  messages?: Array<{ role: string; content: string }>;
  variables?: string[];
  model_settings?: Record<string, unknown>;
}

export interface ExperimentConfig {
  id: string;
  name: string;
  version?: number;
  salt: string;
  bucket_count: number;
  ranges: WireRange[];
  variants: WireVariant[];
  /** Who may enter: a condition over the user's attributes; absent when everyone may. */
  targeting?: unknown;
  /** The share (0 to 1) of eligible users who enter while it runs; absent: 1. */
  coverage?: number;
  /** The layer the experiment is in, by name, and the layer buckets it owns. */
  layer?: string;
  layer_ranges?: WireSpan[];
  /** Ids of the holdouts that apply to it, in the order they were created. */
  holdouts?: string[];
  /** Its lifecycle state; absent reads as `running` (archived experiments are not in the config). */
  status?: 'running' | 'draft' | 'stopped';
  /** The variant every eligible user gets once stopped; present only when `status` is `stopped`. */
  served_variant?: string;
}

/** A layer of mutually exclusive experiments: the user's layer bucket picks at most one. */
export interface WireLayer {
  name: string;
  salt: string;
  bucket_count: number;
}

/** A holdout: users whose bucket is in `ranges` are held out of its experiments. */
export interface WireHoldout {
  id: string;
  name?: string;
  salt: string;
  bucket_count: number;
  ranges: WireSpan[];
}

/** Half-open `[start, end)` buckets with no variant: a layer's or a holdout's. */
export interface WireSpan {
  start: number;
  end: number;
}

/** Half-open `[start, end)`, sorted by start, never overlapping. */
export interface WireRange {
  variant: string;
  start: number;
  end: number;
}

export interface WireVariant {
  key: string;
  prompt?: string;
  /** The stored prompt version the variant serves, when it references one. */
  prompt_ref?: { name: string; version: number };
  variables?: Record<string, unknown>;
}

/** `202` answer of `POST /v1/events`. */
export interface IngestAck {
  accepted: number;
  config_version: number;
  rejected?: { index: number; detail: string }[];
}
