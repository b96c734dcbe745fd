export { type ConditionProblem, checkCondition } from './condition-check.ts';
export { type ConditionEngine, interpreter } from './engine.ts';
export {
  conditionMatcher,
  evalCondition,
  fieldsMatcher,
  type SavedGroups,
} from './evaluate-condition.ts';
export { generatedEngine, preferredEngine } from './fast/generated-engine.ts';
export { FieldTable } from './field-table.ts';
export { type GroupReference, groupReferences } from './group-references.ts';
export { LOGICAL_OPERATORS, TYPE_NAMES, VALUE_OPERATORS, type ValueOperator } from './operators.ts';
export { type PatternReference, patternReferences } from './pattern-references.ts';
export { MAX_PATTERN_SUBJECT, searchable, unsafePattern } from './regex-safety.ts';
export { paddedVersionString } from './version-string.ts';
