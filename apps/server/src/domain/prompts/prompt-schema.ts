import { type Static, Type } from 'typebox';
import { PromptLabel, PromptMessageSchema, PromptName } from '../../schemas/prompt.ts';

/** A version as the API shows it: the template's `text` or `messages`, never both. */
export const PromptVersionSchema = Type.Object({
  version: Type.Integer({ minimum: 1 }),
  text: Type.Optional(Type.String()),
  messages: Type.Optional(Type.Array(PromptMessageSchema)),
  variables: Type.Array(Type.String()),
  model_settings: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  note: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
});

export type PromptVersionView = Static<typeof PromptVersionSchema>;

const labels = Type.Record(PromptLabel, Type.Integer({ minimum: 1 }), {
  description: 'Each label and the version it points at',
});

export const PromptSummarySchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: PromptName,
  description: Type.String(),
  latest_version: Type.Integer({
    minimum: 0,
    description: 'The newest version’s number; 0 before the first',
  }),
  labels,
  created_at: Type.String({ format: 'date-time' }),
});

export type PromptSummary = Static<typeof PromptSummarySchema>;

export const PromptSchema = Type.Object({
  ...PromptSummarySchema.properties,
  versions: Type.Array(PromptVersionSchema, { description: 'Every version, newest first' }),
});

export type PromptView = Static<typeof PromptSchema>;
