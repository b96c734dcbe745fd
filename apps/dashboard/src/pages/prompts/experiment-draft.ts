import type { Prompt } from '../../api/client.ts';
import { blankDraft, type EditorDraft } from '../editor/form-state.ts';

/**
 * The editor's starting point for "start an experiment from this version against production":
 * control on production's version, treatment on `version`, both as references to the stored
 * versions, half the traffic each; metrics are the user's to choose. A reason instead when
 * there is nothing to compare: no production label, production is that version, or the
 * prompt has no such version.
 */
export function draftFromPrompt(prompt: Prompt, version: number): EditorDraft | string {
  const production = prompt.labels.production;
  if (!prompt.versions.some((v) => v.version === version))
    return `${prompt.name} has no version ${version}.`;
  if (production === undefined)
    return `${prompt.name} has no production label: there is nothing to test v${version} against.`;
  if (production === version) return `v${version} is already production.`;
  const ref = (v: number) => ({ name: prompt.name, version: v });
  return {
    ...blankDraft(),
    name: `${prompt.name} v${version} vs v${production}`,
    variants: [
      { key: 'control', prompt: '', promptRef: ref(production), variables: '' },
      { key: 'treatment', prompt: '', promptRef: ref(version), variables: '' },
    ],
  };
}
