/** Rows for a textarea: every line of its text shown, and at least `min`. */
export const textRows = (text: string, min: number): number =>
  Math.max(min, text.split('\n').length);
