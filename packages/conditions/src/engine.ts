// The seam between the interpreter (the core: compile-condition.ts, value-tests.ts) and a faster
// engine built over it (fast/). An evaluator chooses its engine once, when it is built (a client
// in its constructor); the core never imports an engine of fast/.
import { compileCondition } from './compile-condition.ts';
import type { FieldTable } from './field-table.ts';
import type { Predicate } from './value-tests.ts';

/** One way of running a readable condition. */
export interface ConditionEngine {
  /**
   * The condition (one `checkCondition` accepts) as a predicate of the attributes, or, given a
   * table, of the values `table.resolve` reads (the fields the condition reads are numbered in
   * `table` here). Null where this engine cannot build one: without a table the caller then
   * interprets the condition, with one it evaluates the attributes themselves.
   */
  predicate(condition: Record<string, unknown>, table: FieldTable | null): Predicate | null;
}

/** The interpreter alone: every condition as lists of tests run by one loop. */
export const interpreter: ConditionEngine = {
  predicate: (condition, table) => (table === null ? compileCondition(condition) : null),
};
