import { describe, expect, it } from 'vitest';
import type { Prompt, PromptVersion } from '../../src/api/client.ts';
import { draftFromPrompt } from '../../src/pages/prompts/experiment-draft.ts';
import { lineDiff, settingsText, templateText } from '../../src/pages/prompts/version-diff.ts';

const version = (v: Partial<PromptVersion>): PromptVersion => ({
  version: 1,
  variables: [],
  note: '',
  created_at: '2026-01-01T00:00:00Z',
  ...v,
});

describe("a prompt version's diff", () => {
  it('marks the changed lines only, a line added after an unterminated last line included', () => {
    expect(lineDiff('Hello {{name}}.\nBe brief.', 'Hello {{name}}.\nBe brief.\nSign off.')).toEqual(
      [
        { kind: 'same', text: 'Hello {{name}}.' },
        { kind: 'same', text: 'Be brief.' },
        { kind: 'added', text: 'Sign off.' },
      ],
    );
    expect(lineDiff('a\nb\nc', 'a\nB\nc')).toEqual([
      { kind: 'same', text: 'a' },
      { kind: 'removed', text: 'b' },
      { kind: 'added', text: 'B' },
      { kind: 'same', text: 'c' },
    ]);
  });

  it('writes chat messages as a [role] line and their content', () => {
    const chat = version({
      messages: [
        { role: 'system', content: 'You help.' },
        { role: 'user', content: '{{q}}' },
      ],
    });
    expect(templateText(chat)).toBe('[system]\nYou help.\n\n[user]\n{{q}}');
    expect(templateText(version({ text: 'plain' }))).toBe('plain');
  });

  it('compares settings with sorted keys, so only a changed value differs', () => {
    const a = version({ variables: ['q'], model_settings: { temperature: 0.2, model: 'm' } });
    const b = version({ variables: ['q'], model_settings: { model: 'm', temperature: 0.7 } });
    const changed = lineDiff(settingsText(a), settingsText(b)).filter((l) => l.kind !== 'same');
    expect(changed).toEqual([
      { kind: 'removed', text: '    "temperature": 0.2' },
      { kind: 'added', text: '    "temperature": 0.7' },
    ]);
  });
});

describe('an experiment drafted from a prompt version', () => {
  const prompt = {
    id: 'p',
    name: 'reply',
    description: '',
    latest_version: 3,
    labels: { production: 1 },
    created_at: '2026-01-01T00:00:00Z',
    versions: [3, 2, 1].map((n) => version({ version: n, text: `v${n}` })),
  } satisfies Prompt;

  it('puts production on control and the version on treatment, both as references', () => {
    const draft = draftFromPrompt(prompt, 3);
    if (typeof draft === 'string') throw new Error(draft);
    expect(draft.allocation).toEqual([
      { variant: 'control', weight: 50 },
      { variant: 'treatment', weight: 50 },
    ]);
    expect(draft.variants.map((v) => [v.key, v.promptRef])).toEqual([
      ['control', { name: 'reply', version: 1 }],
      ['treatment', { name: 'reply', version: 3 }],
    ]);
  });

  it('refuses with a reason when there is nothing to compare', () => {
    expect(draftFromPrompt(prompt, 1)).toBe('v1 is already production.');
    expect(draftFromPrompt(prompt, 9)).toBe('reply has no version 9.');
    expect(draftFromPrompt({ ...prompt, labels: {} }, 2)).toMatch(/no production label/);
  });
});
