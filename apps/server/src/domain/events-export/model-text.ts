/**
 * Where a model call's prompt and response are read from. Today the text is kept in the event
 * row, so reading it is returning the row's columns; with object storage (issue 24, item 4) the
 * row will carry a reference, and this is the one function that fetches the bytes back, for
 * the raw-event export and every other reader that needs the text as it was sent.
 */
export interface StoredModelText {
  prompt: string | null;
  response: string | null;
}

/** The row's own columns a text reader may look at (a blob store adds its reference here). */
export interface ModelTextRow extends StoredModelText {
  orgId: string;
  eventId: string;
}

/** Reads a model call's text back exactly as it was accepted. */
export type ModelTextReader = (row: ModelTextRow) => Promise<StoredModelText>;

/** The text kept in the row: what every event has while no blob store is configured. */
export const textInRow: ModelTextReader = async (row) => ({
  prompt: row.prompt,
  response: row.response,
});
