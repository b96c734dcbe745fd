import { writeFileSync } from 'node:fs';
import { wireLimitsText } from '../src/wire-limits-document.ts';

/** Writes testdata/wire-limits.json from the package (the drift test says when it is due). */
writeFileSync(new URL('../../../testdata/wire-limits.json', import.meta.url), wireLimitsText());
