import { hashUser } from '@arbiter/bucketing';
import type { BrowserArbiterOptions } from '../options.ts';
import { INDEXEDDB_NAME, OFFLINE_STORE_CAPACITY } from './constants.ts';
import { IndexedDbOfflineStore } from './offline-store-indexeddb.ts';
import type { Platform } from './platform.ts';
import { browserAsyncContext } from './user-context-browser.ts';
import { webRandomUUID } from './uuid.ts';

export const browserPlatform = (options: BrowserArbiterOptions): Platform => ({
  env: () => undefined,
  randomUUID: webRandomUUID,
  asyncContext: browserAsyncContext,
  progressOutput: () => null,
  offlineStore(apiKey) {
    if (options.offlineStore === false || typeof indexedDB === 'undefined') return null;
    // Spilled events carry no key; one database per key keeps them from being replayed into
    // another org when a page talks to two.
    const suffix = hashUser('', apiKey).toString(16).padStart(8, '0');
    return new IndexedDbOfflineStore(
      indexedDB,
      `${INDEXEDDB_NAME}-${suffix}`,
      OFFLINE_STORE_CAPACITY,
    );
  },
  onShutdown(flush) {
    if (typeof document === 'undefined' || typeof addEventListener !== 'function') return () => {};
    // A hidden page may never run again (mobile browsers kill background tabs without unload).
    const onVisibility = () => {
      if (document.visibilityState === 'hidden') flush(true);
    };
    const onPageHide = () => flush(true);
    document.addEventListener('visibilitychange', onVisibility);
    addEventListener('pagehide', onPageHide);
    return () => {
      document.removeEventListener('visibilitychange', onVisibility);
      removeEventListener('pagehide', onPageHide);
    };
  },
});
