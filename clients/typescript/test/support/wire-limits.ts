import { readFileSync } from 'node:fs';

/** testdata/wire-limits.json: the contract's wire vocabulary and limits, generated from packages/contract. */
export interface WireLimits {
  textRule: { pattern: string };
  event: {
    types: string[];
    fields: string[];
    modelCallOnly: string[];
    businessOnly: string[];
    clientSet: string[];
    text: Record<string, { minLength: number; maxLength: number }>;
    numbers: Record<string, { minimum: number; maximum: number; integer: boolean }>;
  };
  freeFormJson: { maxDepth: number; maxBytes: number };
  batch: { maxEvents: number; maxBytes: number };
  timestamps: { maxLiveAgeMs: number };
}

export const WIRE_LIMITS = JSON.parse(
  readFileSync(new URL('../../../../testdata/wire-limits.json', import.meta.url), 'utf8'),
) as WireLimits;
