import { sha256Hex } from '../crypto/tokens.ts';
import type { Database } from '../db/connect.ts';
import type { Clock } from '../kernel/ports.ts';
import { findActiveKeyByHash, type KeyScope } from './keys.ts';

interface Resolved {
  orgId: string;
  scope: KeyScope;
  revoked: boolean;
  orgDeleted: boolean;
  keyHash: string;
}

/**
 * Key lookups for the ingest hot path. An entry lives `maxAgeMs`; a rotation clears the cache
 * at once, in this process directly and in the others on PostgreSQL through the change feed;
 * `maxAgeMs` bounds staleness when a notification is missed. The feed arrives a moment after
 * the rotation's commit, so routes that store data ask `lookup`, which never reads the cache,
 * or admit from the cache and check the key again in their write (`POST /v1/events`).
 */
export class ApiKeyCache {
  private readonly entries = new Map<string, { value: Resolved | null; at: number }>();
  /** Rises with every clear(), so a lookup that started before a rotation is not cached after it. */
  private generation = 0;

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly maxAgeMs = 1000,
    private readonly maxEntries = 50_000,
  ) {}

  clear(): void {
    this.generation += 1;
    this.entries.clear();
  }

  /** The cached answer while it is fresh; undefined when `resolve` must look the key up. */
  cached(raw: string): Resolved | null | undefined {
    const hit = this.entries.get(raw);
    if (hit && this.clock.now().getTime() - hit.at < this.maxAgeMs) return hit.value;
    return undefined;
  }

  /** The database's answer, never the cache's: for routes that store what the key sends. */
  async lookup(raw: string): Promise<Resolved | null> {
    return this.lookupHash(sha256Hex(raw));
  }

  /** `lookup` by the key's SHA-256: for a write that admitted its key from the cache. */
  async lookupHash(keyHash: string): Promise<Resolved | null> {
    const found = await findActiveKeyByHash(this.db, keyHash);
    return found === null ? null : { ...found, keyHash };
  }

  async resolve(raw: string): Promise<Resolved | null> {
    const fresh = this.cached(raw);
    if (fresh !== undefined) return fresh;
    const now = this.clock.now().getTime();
    const generation = this.generation;
    const value = await this.lookup(raw);
    if (generation !== this.generation) return value;
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(raw, { value, at: now });
    return value;
  }
}
