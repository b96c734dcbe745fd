import { ProblemError } from '../../api/problem.ts';

/**
 * The details a problem gives for one field (its JSON pointer, e.g. `#/percent`), so the form
 * shows them beside that field.
 */
export function fieldErrors(error: unknown, pointer: string): string[] {
  if (!(error instanceof ProblemError) || !Array.isArray(error.body.errors)) return [];
  return (error.body.errors as Array<{ pointer?: string; detail: string }>)
    .filter((e) => e.pointer === pointer || e.pointer?.startsWith(`${pointer}/`))
    .map((e) => e.detail);
}
