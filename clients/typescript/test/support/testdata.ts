import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** A file of the shared `testdata/`, parsed; read in place, never copied. */
export function readTestdata(file: string): unknown {
  return JSON.parse(
    readFileSync(fileURLToPath(new URL(`../../../../testdata/${file}`, import.meta.url)), 'utf8'),
  );
}
