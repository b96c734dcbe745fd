import { Type } from 'typebox';

export const IngestAckSchema = Type.Object({
  accepted: Type.Integer({
    description:
      'Events acknowledged, identical retries of already accepted events included; conflicts never',
  }),
  duplicates: Type.Integer({
    description:
      'Of the accepted, events whose event_id was already stored (a retry) or repeated in the batch: acknowledged, stored once',
  }),
  conflicts: Type.Integer({
    description:
      'Events whose event_id was already stored with other content: not accepted, listed in `rejected`; the stored event stands',
  }),
  config_version: Type.Integer({
    description: 'Staleness hint: refresh the cached config when it is newer',
  }),
  rejected: Type.Array(Type.Object({ index: Type.Integer(), detail: Type.String() })),
});
