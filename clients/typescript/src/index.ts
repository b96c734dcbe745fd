import { ArbiterClient } from './internal/client.ts';
import { nodePlatform } from './internal/platform-node.ts';
import type { NodeArbiterOptions } from './options.ts';

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
export type { NodeArbiterOptions } from './options.ts';
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
 * Arbiter for Node 18+: the key and address may come from `ARBITER_API_KEY` and
 * `ARBITER_BASE_URL`, spilled events go to the file `offlineStorePath`, and `withUser` follows
 * the user through awaits with AsyncLocalStorage.
 */
export class Arbiter extends ArbiterClient {
  /** Throws an `ArbiterError` when there is no API key (nor `ARBITER_API_KEY`). */
  constructor(options: NodeArbiterOptions = {}) {
    super(options, nodePlatform(options));
  }
}
