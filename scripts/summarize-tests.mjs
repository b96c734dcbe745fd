// Adds up every suite's report into one closing line: "all suites: N passed, N failed".
// vitest writes JSON; pytest, Maven Surefire and Playwright write JUnit XML. A suite that
// exited non-zero without a report counts as one failure, so a crashed runner never looks green.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.argv[2];
const files = readdirSync(dir);
let passed = 0;
let failed = 0;

for (const file of files.filter((f) => f.endsWith('.json'))) {
  const report = JSON.parse(readFileSync(join(dir, file), 'utf8'));
  passed += report.numPassedTests;
  failed += report.numFailedTests;
}

/** Counts of one JUnit XML document, from its <testsuite> elements (nested <testsuites> totals are not added twice). */
function junitCounts(xml) {
  let tests = 0;
  let bad = 0;
  let skipped = 0;
  for (const m of xml.matchAll(/<testsuite\s([^>]*)>/g)) {
    const attr = (name) => Number(new RegExp(`\\b${name}="(\\d+)"`).exec(m[1])?.[1] ?? 0);
    tests += attr('tests');
    bad += attr('failures') + attr('errors');
    skipped += attr('skipped');
  }
  return { passed: tests - bad - skipped, failed: bad };
}

for (const file of files.filter((f) => f.endsWith('.xml'))) {
  const counts = junitCounts(readFileSync(join(dir, file), 'utf8'));
  const suite = file.replace(/\.xml$/, '');
  process.stdout.write(
    `suite ${suite} reported ${counts.passed} tests passed and ${counts.failed} failed\n`,
  );
  passed += counts.passed;
  failed += counts.failed;
}

for (const file of files.filter((f) => f.endsWith('.exit'))) {
  const suite = file.replace(/\.exit$/, '');
  const code = readFileSync(join(dir, file), 'utf8').trim();
  if (code !== '0' && !existsSync(join(dir, `${suite}.xml`))) {
    process.stdout.write(`${suite}: exited ${code} without a report (counted as one failure)\n`);
    failed += 1;
  }
}

// CI reads a closing line of the form "word: N passed, N failed"; the line the README promises
// ("all suites: …") stays the last one.
process.stdout.write(`\ntotal: ${passed} passed, ${failed} failed\n`);
process.stdout.write(`all suites: ${passed} passed, ${failed} failed\n`);
process.exit(failed === 0 && passed > 0 ? 0 : 1);
