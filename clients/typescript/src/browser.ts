import { ArbiterClient } from './internal/client.ts';
import { browserPlatform } from './internal/platform-browser.ts';
import type { BrowserArbiterOptions } from './options.ts';

export { ArbiterError } from './errors.ts';
export type {
  DatasetItem,
  EvaluateOptions,
  EvaluationProgress,
  EvaluationScorer,
  EvaluationTask,
  EvaluationTaskInput,
  FunctionScorer,
  OfflineComparison,
  OfflineCoverage,
  OfflineNonDeterminism,
  OfflineRun,
  ScoreInput,
  ScorerDirection,
  ServerScorer,
} from './evaluation.ts';
export type { BrowserArbiterOptions } from './options.ts';
export { PreparedAttributes } from './prepared-attributes.ts';
export {
  type PromptGetOptions,
  type PromptMessage,
  type PromptsApi,
  type ResolvedPrompt,
  renderPrompt,
} from './prompts.ts';
export type {
  Attributes,
  ClientStats,
  EventType,
  Logger,
  PromptResult,
  TrackPayload,
} from './types.ts';

/**
 * Arbiter for browsers (and other runtimes without Node built-ins): the key is passed
 * explicitly, spilled events go to IndexedDB, and the queue is flushed when the page is hidden.
 */
export class Arbiter extends ArbiterClient {
  /** Throws an `ArbiterError` when `apiKey` is empty. */
  constructor(options: BrowserArbiterOptions) {
    super(options, browserPlatform(options));
  }
}
