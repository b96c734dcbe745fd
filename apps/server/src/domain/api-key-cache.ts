import type { Clock } from '../context.ts';
import { sha256Hex } from '../crypto/tokens.ts';
import type { Database } from '../db/connect.ts';
import { findActiveKey, type KeyScope } from './keys.ts';

interface Resolved {
  orgId: string;
  scope: KeyScope;
  revoked: boolean;
  keyHash: string;
}

/**
 * Key lookups for the ingest hot path. An entry lives `maxAgeMs`; a rotation in this process
 * clears the cache at once, one in another process is seen within `maxAgeMs`.
 */
export class ApiKeyCache {
  private readonly entries = new Map<string, { value: Resolved | null; at: number }>();

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly maxAgeMs = 1000,
    private readonly maxEntries = 50_000,
  ) {}

  clear(): void {
    this.entries.clear();
  }

  async resolve(raw: string): Promise<Resolved | null> {
    const now = this.clock.now().getTime();
    const hit = this.entries.get(raw);
    if (hit && now - hit.at < this.maxAgeMs) return hit.value;
    const found = await findActiveKey(this.db, raw);
    const value = found === null ? null : { ...found, keyHash: sha256Hex(raw) };
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(raw, { value, at: now });
    return value;
  }
}
