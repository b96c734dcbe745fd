import { Type } from 'typebox';

export const IngestAckSchema = Type.Object({
  accepted: Type.Integer({
    description: 'Events acknowledged, retries of already accepted events included',
  }),
  config_version: Type.Integer({
    description: 'Staleness hint: refresh the cached config when it is newer',
  }),
  rejected: Type.Array(Type.Object({ index: Type.Integer(), detail: Type.String() })),
});
