import { createHash } from 'node:crypto';

/**
 * A model call's text as one stored object: the prompt's UTF-8 bytes, then the response's,
 * nothing between (docs/decisions/scale-out.md#model-text-in-object-storage). The row keeps each part's
 * length, which also says whether the event had it, and the SHA-256 of the whole, which every
 * read checks: text comes back byte for byte as it was accepted, or not at all.
 */
export interface PackedModelText {
  body: Buffer;
  /** Null: the event has no prompt (or no response). */
  promptBytes: number | null;
  responseBytes: number | null;
  sha256: string;
}

export function sha256Hex(body: Uint8Array): string {
  return createHash('sha256').update(body).digest('hex');
}

export function packModelText(
  prompt: string | null | undefined,
  response: string | null | undefined,
): PackedModelText {
  const p = typeof prompt === 'string' ? Buffer.from(prompt, 'utf8') : null;
  const r = typeof response === 'string' ? Buffer.from(response, 'utf8') : null;
  const body = Buffer.concat([p ?? Buffer.alloc(0), r ?? Buffer.alloc(0)]);
  return {
    body,
    promptBytes: p?.length ?? null,
    responseBytes: r?.length ?? null,
    sha256: sha256Hex(body),
  };
}

/** The text back from a stored object; throws when the bytes are not the ones the row names. */
export function unpackModelText(
  body: Uint8Array,
  ref: { promptBytes: number | null; responseBytes: number | null; sha256: string; key: string },
): { prompt: string | null; response: string | null } {
  const bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const promptBytes = ref.promptBytes ?? 0;
  const expected = promptBytes + (ref.responseBytes ?? 0);
  if (bytes.length !== expected || sha256Hex(bytes) !== ref.sha256)
    throw new Error(
      `the stored text ${ref.key} is not what was accepted (${bytes.length} bytes, ${expected} expected, or another SHA-256)`,
    );
  return {
    prompt: ref.promptBytes === null ? null : bytes.subarray(0, promptBytes).toString('utf8'),
    response: ref.responseBytes === null ? null : bytes.subarray(promptBytes).toString('utf8'),
  };
}
