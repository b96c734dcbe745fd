// What the test command left behind. scripts/test.sh exports ARBITER_TEST_RUN (its own temporary
// directory, unique per run) before it starts anything, so every process it starts, however
// deep and even once detached (a PostgreSQL cluster, stripe-mock, a server a suite forgot), still
// carries ARBITER_TEST_RUN=<that directory> in its environment: that tag, not a name, says a
// process is the run's own.
//
//   node scripts/leftovers.mjs check RESULTS_DIR BEFORE_LISTING TMP_PARENT
//     The closing step of the test command, counted in its `all suites:` line: writes
//     RESULTS_DIR/leftovers.xml (JUnit): the check finds a planted process and a planted
//     temporary directory (so it can fail); no process of the run is left; and, on CI (below),
//     no new arbiter-* folder sits in TMP_PARENT (compared with BEFORE_LISTING, its `ls -A` at
//     the start) apart from the run's own directory, which the exit trap removes. Exits 1 when
//     a case fails.
//   node scripts/leftovers.mjs kill
//     For the exit trap: ends every process of the run (TERM, then KILL after 10 s) except this
//     one and its parent, the test command itself.
import { spawn } from 'node:child_process';
import {
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { basename, join, resolve } from 'node:path';

const tag = process.env.ARBITER_TEST_RUN;
if (!tag) {
  console.error('leftovers: ARBITER_TEST_RUN is not set (scripts/test.sh sets it)');
  process.exit(2);
}

/** Processes carrying `ARBITER_TEST_RUN=<value>`, other than this one and the test command. */
function taggedProcesses(value) {
  const found = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid || pid === process.ppid) continue;
    let environ;
    try {
      environ = readFileSync(`/proc/${pid}/environ`, 'latin1');
    } catch {
      continue; // gone meanwhile, or another user's process we may not read (then not ours)
    }
    if (!environ.split('\0').includes(`ARBITER_TEST_RUN=${value}`)) continue;
    let command = '';
    try {
      command = readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0').join(' ').trim();
    } catch {}
    let cwd = '?';
    try {
      cwd = readlinkSync(`/proc/${pid}/cwd`);
    } catch {}
    found.push({ pid, command, cwd });
  }
  return found;
}

/** Entries of `parent` that were not in the listing taken at the start, except the run's directory. */
function newTemporaryEntries(parent, before) {
  const known = new Set(before);
  return readdirSync(parent).filter(
    (name) => !known.has(name) && resolve(parent, name) !== resolve(tag),
  );
}

// Every temporary folder this repository's scripts and tests make is named arbiter-…; the run
// points TMPDIR into its own directory, so one of them in the outer folder means something
// ignored TMPDIR (a hard-coded /tmp, a JVM's java.io.tmpdir) and kept it. A folder, unlike a
// process, carries no tag: only on a machine of the run's own (CI, `CI=true bash .ci/run` on a
// fresh clone) is every new arbiter-* folder the run's. Elsewhere (a shared machine, where other
// checkouts' tests write /tmp/arbiter-* all the time) new entries are listed, not judged.
const ours = (name) => name.startsWith('arbiter-');
const machineOfItsOwn = Boolean(process.env.CI) && process.env.CI !== 'false';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function killAll() {
  let left = taggedProcesses(tag);
  for (const { pid } of left) {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {}
  }
  for (let waited = 0; waited < 10_000 && left.some((p) => alive(p.pid)); waited += 200)
    await sleep(200);
  left = taggedProcesses(tag);
  for (const { pid, command } of left) {
    console.error(`leftovers: killing ${pid} (${command}), still running 10 s after SIGTERM`);
    try {
      process.kill(pid, 'SIGKILL');
    } catch {}
  }
}

const xmlText = (s) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

async function check(results, beforeFile, parent) {
  const before = readFileSync(beforeFile, 'utf8').split('\n').filter(Boolean);
  const cases = [];

  // The control: a process and a directory planted here, as a suite could leave them, must be
  // found by the same two scans; otherwise an empty answer below would prove nothing.
  const planted = spawn('sleep', ['600'], { detached: true, stdio: 'ignore' });
  planted.unref();
  const plantedDir = mkdtempSync(join(parent, 'arbiter-leftovers-control-'));
  await sleep(100); // let sleep exec, so its environment is the one it will keep
  const seenProcess = taggedProcesses(tag).some((p) => p.pid === planted.pid);
  const seenDir = newTemporaryEntries(parent, before).filter(ours).includes(basename(plantedDir));
  process.kill(planted.pid, 'SIGKILL');
  rmSync(plantedDir, { recursive: true, force: true });
  cases.push({
    name: 'finds a planted process and a planted temporary directory',
    failure:
      seenProcess && seenDir
        ? null
        : `planted process found: ${seenProcess}; planted directory found: ${seenDir}`,
  });
  for (let waited = 0; waited < 5_000 && alive(planted.pid); waited += 100) await sleep(100);

  const processes = taggedProcesses(tag);
  cases.push({
    name: 'no process started by the test command is still running',
    failure:
      processes.length === 0
        ? null
        : processes.map((p) => `pid ${p.pid} in ${p.cwd}: ${p.command}`).join('\n'),
  });
  const entries = newTemporaryEntries(parent, before);
  const left = entries.filter(ours);
  if (machineOfItsOwn) {
    cases.push({
      name: `no arbiter-* folder left in ${parent} but the run's own directory, which the trap removes`,
      failure: left.length === 0 ? null : left.map((e) => join(parent, e)).join('\n'),
    });
  } else if (left.length > 0) {
    console.log(
      `not judged (CI is not set: other checkouts may share ${parent}): new arbiter-* entries ${left.join(' ')}`,
    );
  }
  const others = entries.filter((name) => !ours(name));
  if (others.length > 0)
    console.log(`new in ${parent} during the run, maybe by other programs: ${others.join(' ')}`);

  const failures = cases.filter((c) => c.failure);
  const xml = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuite name="leftovers" tests="${cases.length}" failures="${failures.length}">`,
    ...cases.map((c) =>
      c.failure
        ? `  <testcase classname="leftovers" name="${xmlText(c.name)}"><failure message="left behind">${xmlText(c.failure)}</failure></testcase>`
        : `  <testcase classname="leftovers" name="${xmlText(c.name)}"/>`,
    ),
    '</testsuite>',
    '',
  ].join('\n');
  writeFileSync(join(results, 'leftovers.xml'), xml);
  for (const c of cases) console.log(`${c.failure ? 'FAIL' : 'ok'}  ${c.name}`);
  for (const c of failures) console.log(c.failure.replace(/^/gm, '      '));
  return failures.length === 0;
}

const [mode, ...args] = process.argv.slice(2);
if (mode === 'kill') {
  await killAll();
} else if (mode === 'check' && args.length === 3) {
  process.exitCode = (await check(args[0], args[1], args[2])) ? 0 : 1;
} else {
  console.error('usage: leftovers.mjs check RESULTS_DIR BEFORE_LISTING TMP_PARENT | kill');
  process.exitCode = 2;
}
