/** The usage month is the UTC calendar month: `YYYY-MM`, resetting at 00:00 UTC on the 1st. */
export function usageMonth(at: Date): string {
  return at.toISOString().slice(0, 7);
}

export function monthResetsAt(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
}
