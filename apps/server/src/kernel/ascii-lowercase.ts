/**
 * Lowercases A–Z only: `toLowerCase` would turn U+212A KELVIN SIGN into an ASCII k, so an
 * address written with it would match another. Settings and session claims compare with this.
 */
export function asciiLowercase(text: string): string {
  return text.replace(/[A-Z]/g, (c) => c.toLowerCase());
}
