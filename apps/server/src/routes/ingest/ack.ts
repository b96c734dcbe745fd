import { Type } from 'typebox';

export const IngestAckSchema = Type.Object({
  accepted: Type.Integer({
    description: 'Events acknowledged, retries of already accepted events included',
  }),
  duplicates: Type.Integer({
    description:
      'Of the accepted, events whose event_id was already stored (a retry) or repeated in the batch: acknowledged, stored once',
  }),
  conflicts: Type.Integer({
    description:
      'Of the duplicates, events whose event_id was already stored with other content: acknowledged and dropped, the first event stands',
  }),
  config_version: Type.Integer({
    description: 'Staleness hint: refresh the cached config when it is newer',
  }),
  rejected: Type.Array(Type.Object({ index: Type.Integer(), detail: Type.String() })),
});
