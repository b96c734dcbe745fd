/**
 * Protobuf bytes written by hand, for requests no encoder would make (bombs, deep nesting):
 * the OTLP limit tests and the hostile-export bench build theirs from these.
 */

/** A varint as protobuf writes it. */
export function varint(n: number): number[] {
  const out: number[] = [];
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return out;
}

/** A length-delimited protobuf field: its tag, its length and its bytes. */
export function field(number: number, payload: Buffer): Buffer {
  return Buffer.concat([Buffer.from([(number << 3) | 2, ...varint(payload.length)]), payload]);
}
