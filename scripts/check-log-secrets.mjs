// The log-redaction check over a whole test run: no key, webhook secret, key hash or ciphertext
// that the run's servers minted may appear in any line they logged. The test harness writes
// both sides into one folder (ARBITER_TEST_LOG_DIR): server-*.ndjson, every log line of every
// server test; secrets-*.txt, every secret in every stored form. Writes a JUnit report beside
// the other suites' so the closing "all suites" line counts it.
// Usage: node scripts/check-log-secrets.mjs RESULTS_DIR
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const results = process.argv[2];
const dir = join(results, 'server-logs');
const files = existsSync(dir) ? readdirSync(dir) : [];
const read = (prefix) =>
  files.filter((f) => f.startsWith(prefix)).map((f) => readFileSync(join(dir, f), 'utf8'));

// Secrets and log lines are compared as runs of base64url/hex characters: a raw key, a hash
// and each part of a sealed `v1.<iv>.<ciphertext>.<tag>` is one such run, and so is any copy
// of it in a JSON line (quotes, commas, dots and spaces end a run). One set lookup per run of
// the log keeps the check linear in the log's size.
const RUN = /[A-Za-z0-9_-]{16,}/g;
const secrets = new Set(read('secrets-').flatMap((text) => text.match(RUN) ?? []));
let lines = 0;
const leaks = [];
for (const text of read('server-')) {
  for (const line of text.split('\n')) {
    if (line === '') continue;
    lines += 1;
    for (const run of line.match(RUN) ?? []) {
      if (secrets.has(run)) leaks.push(line.length > 300 ? `${line.slice(0, 300)}…` : line);
    }
  }
}

// A check that saw no line or no secret proves nothing: that is a failure too.
const failure =
  lines === 0
    ? 'no server log lines were recorded'
    : secrets.size === 0
      ? 'no secrets were recorded'
      : leaks.length > 0
        ? `${leaks.length} log line(s) hold a secret the tests created:\n${leaks.slice(0, 5).join('\n')}`
        : null;
const xmlText = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');
writeFileSync(
  join(results, 'log-secrets.xml'),
  `<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="log-secrets" tests="1" failures="${failure === null ? 0 : 1}" errors="0" skipped="0">
  <testcase name="no secret in the server log of the whole run">${
    failure === null ? '' : `<failure message="${xmlText(failure)}"/>`
  }</testcase>
</testsuite>
`,
);
process.stdout.write(
  `log-secrets: ${lines} log lines, ${secrets.size} secret fragments, ${leaks.length} leaks\n`,
);
if (failure !== null) process.stdout.write(`log-secrets: FAILED: ${failure}\n`);
process.exit(failure === null ? 0 : 1);
