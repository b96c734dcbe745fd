import { Type } from 'typebox';
import { PromptLabel, PromptName } from '../../schemas/prompt.ts';

export const PromptParams = Type.Object({ name: PromptName });

export const LabelParams = Type.Object({ name: PromptName, label: PromptLabel });

export const TAGS = ['prompts'];
