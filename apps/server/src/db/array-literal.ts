/**
 * A PostgreSQL array literal (`{"a","b",NULL}`) of strings, numbers and nulls, sent as one text
 * parameter and cast in SQL (`$1::text[]`). Many rows then go in one statement through
 * `unnest`, with a fixed number of parameters, instead of one parameter per value (parsing
 * and binding thousands of parameters was most of a large insert's cost).
 */
export function arrayLiteral(values: ReadonlyArray<string | number | null>): string {
  let out = '{';
  for (let i = 0; i < values.length; i++) {
    if (i > 0) out += ',';
    const v = values[i];
    if (v === null || v === undefined) out += 'NULL';
    else if (typeof v === 'number') out += String(v);
    else out += `"${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
  }
  return `${out}}`;
}
