import type pg from 'pg';
import { serialize } from 'pg-protocol';

/**
 * A simple-protocol query whose `copy … from stdin` takes `rows`, sent with its rows and their
 * end in one socket write. pg-copy-streams sends the query, waits for the server's
 * CopyInResponse and only then writes the rows and CopyDone, so the backend of every COPY goes
 * idle and is woken again, and the client writes three more times (bench/server/RESULTS.md).
 * The protocol lets the rows follow the query at once: the backend reads them when its COPY
 * starts, and "any subsequent CopyData, CopyDone, or CopyFail messages issued by the
 * frontend will simply be dropped" after an error (PostgreSQL's protocol, "COPY Operations"),
 * so a query that fails before or during its COPY leaves nothing behind on the connection.
 * The messages are pg-protocol's own; only their order is ours.
 *
 * `pg` hands the connection's messages to it as to any submittable query; `done` settles when
 * the backend is ready for the next query, or rejects with the backend's error.
 */
export class CopyInOneWrite implements pg.Submittable {
  readonly done: Promise<void>;
  private resolve!: () => void;
  private reject!: (error: Error) => void;

  constructor(
    /** The query; statement spans read its first keyword. */
    readonly text: string,
    private readonly rows: string,
  ) {
    this.done = new Promise<void>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }

  /** Query, CopyData and CopyDone, as pg's own serializer writes them, in one write. */
  submit(connection: pg.Connection): void {
    const stream = connection.stream;
    stream.cork();
    stream.write(serialize.query(this.text));
    stream.write(serialize.copyData(Buffer.from(this.rows)));
    stream.write(serialize.copyDone());
    stream.uncork();
  }

  /** The rows went with the query. */
  handleCopyInResponse(): void {}

  handleCommandComplete(): void {}

  handleRowDescription(): void {}

  handleDataRow(): void {}

  handleEmptyQuery(): void {}

  handleReadyForQuery(): void {
    this.resolve();
  }

  /** The backend's error, or the connection's: `pg` sends no ReadyForQuery to this query after it. */
  handleError(error: Error): void {
    this.reject(error);
  }
}
