import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as constants from '../src/internal/constants.ts';

/** The constants table of the README, as name -> value text. */
function readmeTable(): Map<string, string> {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf('## Constants'), readme.indexOf('## Development'));
  const rows = new Map<string, string>();
  for (const m of section.matchAll(/^\| `([A-Z0-9_]+)` \| `([^`]*)` \|$/gm)) {
    rows.set(m[1] ?? '', m[2] ?? '');
  }
  return rows;
}

describe('constants', () => {
  it('are all written down in the README with their values', () => {
    const table = readmeTable();
    expect([...table.keys()].sort()).toEqual(Object.keys(constants).sort());
    for (const [name, value] of Object.entries(constants))
      expect(table.get(name)).toBe(String(value));
  });

  it('equal the defaults every client library shares (testdata/client-defaults.json)', () => {
    const shared = JSON.parse(
      readFileSync(new URL('../../../testdata/client-defaults.json', import.meta.url), 'utf8'),
    ) as {
      constants: Record<string, unknown>;
      options: Record<string, string>;
      optionsWithoutConstant: string[];
      switches: Record<string, boolean>;
      switchesFollowing: Record<string, string>;
    };
    const ours = constants as Record<string, unknown>;
    for (const [name, value] of Object.entries(shared.constants))
      expect(ours[name], name).toBe(value);
    // Every shared option is documented in the README under its TypeScript name.
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    for (const option of [...Object.keys(shared.options), ...shared.optionsWithoutConstant])
      expect(readme, option).toContain(`| \`${option}\` |`);
    // Each on/off option's default is the shared one (the behaviour tests check it holds).
    for (const [option, value] of Object.entries(shared.switches))
      expect(readme, option).toContain(`| \`${option}\` | \`${String(value)}\` |`);
    for (const [option, other] of Object.entries(shared.switchesFollowing))
      expect(readme, option).toContain(`| \`${option}\` | same as \`${other}\` |`);
  });

  it('hold the values the contract fixes (docs/decisions/clients.md#shared-behaviour-and-defaults)', () => {
    expect(constants.CONFIG_POLL_INTERVAL_MS).toBe(60_000);
    expect(constants.OFFLINE_REPLAY_WINDOW_MS).toBe(24 * 3_600_000);
    expect(constants.DEFAULT_BASE_URL).toBe('https://api.arbiter.dev');
    expect(constants.MAX_ATTEMPTS).toBeGreaterThanOrEqual(2);
    expect(constants.MAX_ATTEMPTS).toBeLessThanOrEqual(3);
  });
});
