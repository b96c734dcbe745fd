import { Outcome } from '../kernel/outcome.ts';

/** Every expected failure of the ingest layer. */
export type IngestCode =
  | 'nothing-accepted'
  | 'allowance-exceeded'
  | 'experiment-not-found'
  | 'test-event-limit'
  | 'import-unreadable'
  | 'otlp-unreadable'
  | 'otlp-too-large';

export class IngestError extends Outcome<IngestCode> {}
