/** What both entry points (index.ts for Node, browser.ts) export beside their own `Arbiter`. */
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
