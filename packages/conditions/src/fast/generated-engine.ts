import { type ConditionEngine, interpreter } from '../engine.ts';
import { codeGenerationRefused, generateMatcher } from './generated-matcher.ts';

/**
 * Conditions as generated functions (generated-matcher.ts), about three times as fast as the
 * interpreter; a condition no function can be generated for (a realm that refuses `new
 * Function`) is left to the interpreter.
 */
export const generatedEngine: ConditionEngine = {
  predicate: (condition, table) => generateMatcher(condition, table),
};

/**
 * The engine an evaluator takes when it is built: the generated one, unless this realm has
 * already refused code generation (then every condition would be interpreted anyway).
 */
export function preferredEngine(): ConditionEngine {
  return codeGenerationRefused() ? interpreter : generatedEngine;
}
