/**
 * UTF-8 encoding into a reused scratch buffer, so that bucketing a user allocates nothing.
 * A lone UTF-16 surrogate becomes U+FFFD (EF BF BD), exactly as TextEncoder does: the frozen
 * rule every client library follows.
 */
let scratch = new Uint8Array(256);

/** Encodes `text` and returns the byte length; the bytes are in `scratchBytes()` until the next call. */
export function encodeUtf8(text: string): number {
  return encodeUtf8At(text, 0);
}

/**
 * Encodes `text` into the scratch buffer from `offset` on, keeping the bytes before it, and
 * returns the end offset.
 */
export function encodeUtf8At(text: string, offset: number): number {
  const needed = offset + text.length * 3;
  if (scratch.length < needed) {
    const grown = new Uint8Array(needed * 2);
    grown.set(scratch.subarray(0, offset));
    scratch = grown;
  }
  const out = scratch;
  let n = offset;
  for (let i = 0; i < text.length; i++) {
    let c = text.charCodeAt(i);
    if (c < 0x80) {
      out[n++] = c;
    } else if (c < 0x800) {
      out[n++] = 0xc0 | (c >> 6);
      out[n++] = 0x80 | (c & 0x3f);
    } else if (c >= 0xd800 && c <= 0xdfff) {
      const next = i + 1 < text.length ? text.charCodeAt(i + 1) : 0;
      if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        c = 0x10000 + ((c - 0xd800) << 10) + (next - 0xdc00);
        i++;
        out[n++] = 0xf0 | (c >> 18);
        out[n++] = 0x80 | ((c >> 12) & 0x3f);
        out[n++] = 0x80 | ((c >> 6) & 0x3f);
        out[n++] = 0x80 | (c & 0x3f);
      } else {
        out[n++] = 0xef;
        out[n++] = 0xbf;
        out[n++] = 0xbd;
      }
    } else {
      out[n++] = 0xe0 | (c >> 12);
      out[n++] = 0x80 | ((c >> 6) & 0x3f);
      out[n++] = 0x80 | (c & 0x3f);
    }
  }
  return n;
}

export function scratchBytes(): Uint8Array {
  return scratch;
}
