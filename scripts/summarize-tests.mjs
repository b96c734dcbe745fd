// Adds up every suite's report into one closing line: "all suites: N passed, N failed".
// vitest writes JSON; pytest, Maven Surefire and Playwright write JUnit XML. A suite that
// exited non-zero without a report counts as one failure, so a crashed runner never looks green.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.argv[2];
const files = readdirSync(dir);
let passed = 0;
let failed = 0;
/** Each failed test by name, printed just above the closing line so a CI excerpt shows it. */
const failures = [];

/** Every vitest log of the run, colours removed, read once when a hook's error is looked up. */
let logText;
const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');

/**
 * A hook that throws inside a describe block fails the file with no message in the JSON report
 * (vitest keeps the error on the suite); the console reporter printed it under "FAIL <file> >
 * <suite>", so the first line after that names it.
 */
function hookErrorInLogs(absolutePath) {
  logText ??= files
    .filter((f) => f.endsWith('.log'))
    .map((f) => readFileSync(join(dir, f), 'utf8').replace(ANSI, ''))
    .join('\n');
  const relative = absolutePath.replace(/^.*\/(test\/)/, '$1');
  for (const block of logText.split(/\n(?=\s*FAIL\s)/)) {
    const [head, ...rest] = block.split('\n');
    if (!/^\s*FAIL\s/.test(head) || !head.includes(relative)) continue;
    const line = rest.find((l) => l.trim() !== '');
    if (line !== undefined) return `${head.trim().replace(/^FAIL\s+/, '')}: ${line.trim()}`;
  }
  return null;
}

for (const file of files.filter((f) => f.endsWith('.json'))) {
  const report = JSON.parse(readFileSync(join(dir, file), 'utf8'));
  const before = failures.length;
  passed += report.numPassedTests;
  failed += report.numFailedTests;
  for (const result of report.testResults ?? []) {
    for (const test of result.assertionResults ?? []) {
      if (test.status === 'failed') failures.push(`${result.name} > ${test.fullName}`);
    }
    // A file that failed to load, or whose setup or teardown threw, fails with no failed test,
    // only a message; vitest does not count it among failed tests, so it counts here as one.
    const testFailed = (result.assertionResults ?? []).some((t) => t.status === 'failed');
    if (result.status === 'failed' && !testFailed) {
      const reason =
        String(result.message ?? '').split('\n')[0] ||
        hookErrorInLogs(result.name) ||
        'a setup or teardown hook failed';
      failures.push(`${result.name}: ${reason}`);
      failed += 1;
    }
  }
  // An error outside every test (an unhandled rejection) fails the run with nothing failed.
  if (report.success === false && report.numFailedTests === 0 && failures.length === before) {
    failures.push(`${file}: the run failed outside its tests (see its log)`);
    failed += 1;
  }
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
  // A <testcase> holding a <failure> or <error> names the test that failed.
  const names = [];
  for (const m of xml.matchAll(/<testcase\s([^>]*?)(?:\/>|>([\s\S]*?)<\/testcase>)/g)) {
    if (!/<(failure|error)\b/.test(m[2] ?? '')) continue;
    const attr = (name) => new RegExp(`\\b${name}="([^"]*)"`).exec(m[1])?.[1] ?? '';
    names.push(`${attr('classname')} > ${attr('name')}`);
  }
  return { passed: tests - bad - skipped, failed: bad, names };
}

/** Failed tests by JUnit suite, to tell a suite that failed without a failing test. */
const junitFailed = new Map();

for (const file of files.filter((f) => f.endsWith('.xml'))) {
  const counts = junitCounts(readFileSync(join(dir, file), 'utf8'));
  const suite = file.replace(/\.xml$/, '');
  process.stdout.write(
    `suite ${suite} reported ${counts.passed} tests passed and ${counts.failed} failed\n`,
  );
  passed += counts.passed;
  failed += counts.failed;
  junitFailed.set(suite, counts.failed);
  for (const name of counts.names) failures.push(`${suite}: ${name}`);
}

for (const file of files.filter((f) => f.endsWith('.exit'))) {
  const suite = file.replace(/\.exit$/, '');
  const code = readFileSync(join(dir, file), 'utf8').trim();
  const reported = ['xml', 'json'].some((ext) => existsSync(join(dir, `${suite}.${ext}`)));
  if (code !== '0' && !reported) {
    process.stdout.write(`${suite}: exited ${code} without a report (counted as one failure)\n`);
    failed += 1;
  } else if (code !== '0' && junitFailed.get(suite) === 0) {
    // A runner that stopped part way (Surefire's fork timeout) leaves a report of what ran.
    failures.push(`${suite}: exited ${code} though its report names no failed test (see its log)`);
    failed += 1;
  }
}

// CI reads a closing line of the form "word: N passed, N failed"; the line the README promises
// ("all suites: …") stays the last one.
if (failures.length > 0) {
  process.stdout.write(`\nfailed tests:\n${failures.map((f) => `  ${f}\n`).join('')}`);
}
process.stdout.write(`\ntotal: ${passed} passed, ${failed} failed\n`);
process.stdout.write(`all suites: ${passed} passed, ${failed} failed\n`);
process.exit(failed === 0 && passed > 0 ? 0 : 1);
