import type { FlagHooks } from './resolve.ts';

/** The provider events a poll can cause, by the names both OpenFeature SDKs give them. */
export type WatchEvent =
  | 'PROVIDER_READY'
  | 'PROVIDER_CONFIGURATION_CHANGED'
  | 'PROVIDER_STALE'
  | 'PROVIDER_ERROR';

/**
 * Turns the client's polls into provider events: READY when a config loads after none could be
 * (or the API answers again after STALE), CONFIGURATION_CHANGED when a poll installs another
 * config version, STALE when a poll fails with a config loaded (it keeps serving), ERROR when
 * it fails with none. Each once per change of state, not once per poll.
 */
export function watchConfig(
  hooks: FlagHooks,
  emit: (event: WatchEvent, message?: string) => void,
): () => void {
  let state: 'ready' | 'stale' | 'error' = hooks.loaded() ? 'ready' : 'error';
  let version = hooks.version();
  return hooks.onPoll((outcome) => {
    if (outcome === 'failed') {
      const next = hooks.loaded() ? 'stale' : 'error';
      if (state !== next) {
        state = next;
        emit(
          next === 'stale' ? 'PROVIDER_STALE' : 'PROVIDER_ERROR',
          next === 'stale'
            ? 'the Arbiter API cannot be reached: the last config keeps serving'
            : 'the Arbiter config cannot be loaded',
        );
      }
      return;
    }
    if (!hooks.loaded()) return;
    if (state !== 'ready') {
      state = 'ready';
      emit('PROVIDER_READY');
    }
    const now = hooks.version();
    if (now !== version) {
      const before = version;
      version = now;
      if (before !== null) emit('PROVIDER_CONFIGURATION_CHANGED');
    }
  });
}
