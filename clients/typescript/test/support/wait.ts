/**
 * Polls until `check` holds. No deadline of its own: a condition that never holds fails through
 * the test's timeout, so no test depends on how fast the machine is.
 */
export async function until(check: () => boolean | Promise<boolean>, everyMs = 5): Promise<void> {
  while (!(await check())) await new Promise((r) => setTimeout(r, everyMs));
}
