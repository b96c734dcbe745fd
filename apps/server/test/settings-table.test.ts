import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SETTING_NAMES, settingSchema } from '../src/settings-schema.ts';

const README = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');

interface Row {
  default: string | null;
  meaning: string;
}

/** The rows of a README's "Settings" table by variable; "—" is a setting without a default. */
function readmeSettings(readme: string): Map<string, Row> {
  const section = readme.split(/^## /m).find((s) => s.startsWith('Settings\n')) ?? '';
  const rows = new Map<string, Row>();
  for (const line of section.split('\n').filter((l) => l.startsWith('| `'))) {
    const [name, fallback, meaning] = line
      .slice(1, -1)
      .split(' | ')
      .map((cell) => cell.trim());
    const unquote = (cell = '') => cell.replace(/^`(.*)`$/, '$1');
    expect(rows.has(unquote(name)), `${name} appears once`).toBe(false);
    rows.set(unquote(name), {
      default: fallback === '—' ? null : unquote(fallback),
      meaning: meaning ?? '',
    });
  }
  return rows;
}

function schemaSettings(): Map<string, Row> {
  return new Map(
    SETTING_NAMES.map((name) => {
      const schema = settingSchema(name);
      return [
        name,
        {
          default: schema.default === undefined ? null : String(schema.default),
          meaning: schema.description ?? '',
        },
      ];
    }),
  );
}

/** The README with one row taken out: what the guard must catch. */
function withoutRow(readme: string, name: string): string {
  const kept = readme.split('\n').filter((line) => !line.startsWith(`| \`${name}\` |`));
  expect(kept.length).toBe(readme.split('\n').length - 1);
  return kept.join('\n');
}

describe("the README's settings table", () => {
  it('fails on a planted missing setting', () => {
    const readme = readmeSettings(withoutRow(README, 'ARBITER_SMTP_FROM'));
    expect([...schemaSettings().keys()].filter((name) => !readme.has(name))).toEqual([
      'ARBITER_SMTP_FROM',
    ]);
  });

  it('lists every setting of the schema, and only those, with its default and meaning', () => {
    const readme = readmeSettings(README);
    const schema = schemaSettings();
    expect([...readme.keys()].sort()).toEqual([...schema.keys()].sort());
    expect(Object.fromEntries(readme)).toEqual(Object.fromEntries(schema));
  });

  it('gives every setting of the schema a meaning', () => {
    for (const name of SETTING_NAMES) expect(settingSchema(name).description, name).toBeTruthy();
  });
});
