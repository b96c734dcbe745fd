import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { repositoryFiles } from './support/readme-layout.ts';

/** Every manifest of the repository declares the licence of its LICENSE file, Apache-2.0. */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

const DECLARES: Record<string, (text: string) => boolean> = {
  'package.json': (text) => JSON.parse(text).license === 'Apache-2.0',
  'pom.xml': (text) =>
    /<licenses>\s*<license>\s*<name>Apache License, Version 2\.0<\/name>/.test(text),
  'pyproject.toml': (text) => /^license = "Apache-2\.0"$/m.test(text),
};

function manifests(): string[] {
  return repositoryFiles(ROOT).filter(
    (file) => basename(file) in DECLARES && !file.includes('node_modules/'),
  );
}

describe('the manifests', () => {
  it('are found in every kind', () => {
    const kinds = new Set(manifests().map((file) => basename(file)));
    expect([...kinds].sort()).toEqual(Object.keys(DECLARES).sort());
  });

  it('each declare Apache-2.0', () => {
    const missing = manifests().filter((file) => {
      const declares = DECLARES[basename(file)] as (text: string) => boolean;
      return !declares(readFileSync(join(ROOT, file), 'utf8'));
    });
    expect(missing).toEqual([]);
  });

  it('fail a planted manifest without one', () => {
    expect(DECLARES['package.json']?.('{"name": "x"}')).toBe(false);
    expect(DECLARES['pom.xml']?.('<project><artifactId>x</artifactId></project>')).toBe(false);
    expect(DECLARES['pyproject.toml']?.('[project]\nname = "x"\n')).toBe(false);
  });
});
