import { randomUUID } from 'node:crypto';
import type { NodeArbiterOptions } from '../options.ts';
import { OFFLINE_STORE_CAPACITY } from './constants.ts';
import { FileOfflineStore } from './offline-store-file.ts';
import type { Platform } from './platform.ts';
import { nodeAsyncContext } from './user-context-node.ts';

export const nodePlatform = (options: NodeArbiterOptions): Platform => ({
  // Read at construction, never at import (STYLE: no module-level environment reads).
  env: (name) => process.env[name],
  randomUUID: () => randomUUID(),
  asyncContext: nodeAsyncContext,
  // Asked when an evaluation starts: a redirected stderr (a CI log) gets no redrawn line.
  progressOutput: () =>
    process.stderr.isTTY === true ? { write: (text) => void process.stderr.write(text) } : null,
  offlineStore: () =>
    options.offlineStorePath === undefined || options.offlineStorePath === ''
      ? null
      : new FileOfflineStore(options.offlineStorePath, OFFLINE_STORE_CAPACITY),
  onShutdown(flush) {
    // beforeExit fires when the event loop runs dry (our timers are unref'd), which is the
    // last moment to deliver the queue of a host that never called close().
    const onBeforeExit = () => flush(false);
    process.on('beforeExit', onBeforeExit);
    return () => process.off('beforeExit', onBeforeExit);
  },
});
