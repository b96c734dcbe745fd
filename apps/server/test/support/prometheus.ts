import { spawnSync } from 'node:child_process';
import { testPython } from '../../../../packages/stats/test/support/test-python.ts';

/** One sample of a scrape: `name{labels} value`, as the parser read it. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** One metric family: its name (a counter's without `_total`), type, help and samples. */
export interface Family {
  name: string;
  type: string;
  help: string;
  samples: Sample[];
}

// The official Python client's parser; non-finite values travel as text (JSON has none).
const PARSER = `
import json, math, sys
from prometheus_client.parser import text_string_to_metric_families
def value(v):
    return v if math.isfinite(v) else str(v)
json.dump([
    {"name": f.name, "type": f.type, "help": f.documentation,
     "samples": [{"name": s.name, "labels": s.labels, "value": value(s.value)} for s in f.samples]}
    for f in text_string_to_metric_families(sys.stdin.read())
], sys.stdout)
`;

/**
 * A scrape read by a real Prometheus text parser: `prometheus_client`'s, in the Python of
 * `testPython()` (ARBITER_PYTHON, else the repository's .venv). A text it refuses fails the test.
 */
export function parsePrometheus(text: string): Family[] {
  const python = testPython();
  const run = spawnSync(python, ['-c', PARSER], { input: text, encoding: 'utf8' });
  if (run.error !== undefined || run.status !== 0)
    throw new Error(
      `the Prometheus text parser failed: ${python} (${run.error?.message ?? `exit status ${run.status}`}).\n${(run.stderr ?? '').trim()}\nSet ARBITER_PYTHON to a Python with apps/server/test/support/prometheus-requirements.txt installed (bash scripts/python-env.sh).`,
    );
  const families = JSON.parse(run.stdout) as Array<
    Omit<Family, 'samples'> & { samples: Array<Omit<Sample, 'value'> & { value: number | string }> }
  >;
  const nonFinite: Record<string, number> = { inf: Infinity, '-inf': -Infinity, nan: Number.NaN };
  return families.map((f) => ({
    ...f,
    samples: f.samples.map((s) => ({
      ...s,
      value: typeof s.value === 'number' ? s.value : (nonFinite[s.value] ?? Number.NaN),
    })),
  }));
}

/** Every sample of a scrape, whatever its family. */
export function samplesOf(families: Family[]): Sample[] {
  return families.flatMap((f) => f.samples);
}

/** The value of the first sample named `name` whose labels include `labels`; 0 when none. */
export function sampleValue(
  samples: Sample[],
  name: string,
  labels: Record<string, string> = {},
): number {
  const found = samples.find(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  return found?.value ?? 0;
}
