import { events } from '../../db/schema.ts';
import type { ModelTextStore } from '../../kernel/ports.ts';
import { unpackModelText } from '../model-text-object.ts';

/**
 * Where a model call's prompt and response are read from: the event row's own columns, or,
 * when the row carries a reference (object storage, ARBITER_BLOB_URL), the store. This is the
 * one function that fetches the bytes back, for the raw-event export, the judge and every
 * other reader that needs the text as it was sent.
 */
export interface StoredModelText {
  prompt: string | null;
  response: string | null;
}

/** The row's own columns a text reader looks at: its text, or the reference to it. */
export interface ModelTextRow extends StoredModelText {
  orgId: string;
  eventId: string;
  textKey: string | null;
  promptBytes: number | null;
  responseBytes: number | null;
  textSha256: string | null;
}

/** The event columns a text reader looks at, as a select names them. */
export const MODEL_TEXT_COLUMNS = {
  prompt: events.prompt,
  response: events.response,
  textKey: events.textKey,
  promptBytes: events.promptBytes,
  responseBytes: events.responseBytes,
  textSha256: events.textSha256,
};

/** Reads a model call's text back exactly as it was accepted. */
export type ModelTextReader = (row: ModelTextRow) => Promise<StoredModelText>;

/** The text kept in the row: what every event has while no blob store is configured. */
export const textInRow: ModelTextReader = async (row) => ({
  prompt: row.prompt,
  response: row.response,
});

/**
 * The text of rows that hold it, and of rows that refer to the store; a row stored before the
 * store was configured keeps its text, so both kinds are read alike. Throws when the store
 * cannot give the object back, or gives other bytes than the row's SHA-256 names.
 */
export function modelTextReader(store: ModelTextStore | null): ModelTextReader {
  if (store === null) return textInRow;
  return async (row) => {
    if (row.textKey === null || row.textSha256 === null) return textInRow(row);
    const body = await store.get(row.textKey);
    return unpackModelText(body, {
      key: row.textKey,
      promptBytes: row.promptBytes,
      responseBytes: row.responseBytes,
      sha256: row.textSha256,
    });
  };
}
