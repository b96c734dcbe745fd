import { NUMERIC_DOMAINS } from '@arbiter/contract';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { csvRecords } from '../../../src/ingest/import/csv-records.ts';
import {
  CSV_COLUMNS,
  type CsvColumn,
  IMPORT_MAX_ROWS,
  ImportFormatError,
  parseCsvImport,
  parseJsonArrayImport,
  parseNdjsonImport,
} from '../../../src/ingest/import/index.ts';
import { TimeSlice } from '../../../src/kernel/time-slice.ts';

/** Joins physical lines with LF, so a test reads like the file it describes. */
const lines = (...ls: string[]) => ls.join('\n');

async function formatError(parse: () => Promise<unknown>): Promise<ImportFormatError> {
  try {
    await parse();
  } catch (err) {
    if (err instanceof ImportFormatError) return err;
    throw err;
  }
  throw new Error('expected an ImportFormatError');
}

describe('parseCsvImport', () => {
  it('keeps commas inside quoted fields', async () => {
    const parsed = await parseCsvImport(lines('event_id,prompt,model', 'e1,"hello, world",gpt'));
    expect(parsed).toEqual({
      rows: [{ line: 2, event: { event_id: 'e1', prompt: 'hello, world', model: 'gpt' } }],
      errors: [],
    });
  });

  it('reads a doubled quote as one quote', async () => {
    const parsed = await parseCsvImport(lines('event_id,prompt,response', 'e1,"say ""hi""",""""'));
    expect(parsed).toEqual({
      rows: [{ line: 2, event: { event_id: 'e1', prompt: 'say "hi"', response: '"' } }],
      errors: [],
    });
  });

  it('keeps newlines inside quotes and reports the line each row starts on', async () => {
    const text = lines(
      'event_id,prompt',
      'e1,"first',
      'second',
      'third"',
      'e2,plain',
      'e3,"a',
      'b"',
      'e4,x',
    );
    expect(await parseCsvImport(text)).toEqual({
      rows: [
        { line: 2, event: { event_id: 'e1', prompt: 'first\nsecond\nthird' } },
        { line: 5, event: { event_id: 'e2', prompt: 'plain' } },
        { line: 6, event: { event_id: 'e3', prompt: 'a\nb' } },
        { line: 8, event: { event_id: 'e4', prompt: 'x' } },
      ],
      errors: [],
    });
  });

  it('takes CRLF row endings and keeps a CRLF inside quotes as data', async () => {
    const text = 'event_id,prompt\r\ne1,"a\r\nb"\r\ne2,c\r\n';
    expect((await parseCsvImport(text)).rows).toEqual([
      { line: 2, event: { event_id: 'e1', prompt: 'a\r\nb' } },
      { line: 4, event: { event_id: 'e2', prompt: 'c' } },
    ]);
  });

  it('ignores a UTF-8 BOM before the header', async () => {
    const parsed = await parseCsvImport('\uFEFFevent_id,type\ne1,exposure\n');
    expect(parsed.rows).toEqual([{ line: 2, event: { event_id: 'e1', type: 'exposure' } }]);
  });

  it('makes no empty row of a trailing newline', async () => {
    for (const ending of ['\n', '\r\n', '\r']) {
      expect(await parseCsvImport(`user_id\nu1${ending}`)).toEqual({
        rows: [{ line: 2, event: { user_id: 'u1' } }],
        errors: [],
      });
    }
  });

  it('skips blank lines without shifting line numbers', async () => {
    const text = '\nuser_id,model\n\ne1,m\r\n\r\n\ne2,n\n\n';
    expect(await parseCsvImport(text)).toEqual({
      rows: [
        { line: 4, event: { user_id: 'e1', model: 'm' } },
        { line: 7, event: { user_id: 'e2', model: 'n' } },
      ],
      errors: [],
    });
  });

  it('reports a malformed row at its line and returns the good ones around it', async () => {
    const text = lines('event_id,prompt', 'e1,ok', 'e2,"multi', 'line"', 'e3,bro"ken', 'e4,"fine"');
    expect(await parseCsvImport(text)).toEqual({
      rows: [
        { line: 2, event: { event_id: 'e1', prompt: 'ok' } },
        { line: 3, event: { event_id: 'e2', prompt: 'multi\nline' } },
        { line: 6, event: { event_id: 'e4', prompt: 'fine' } },
      ],
      errors: [{ line: 5, detail: 'prompt: quote inside an unquoted field' }],
    });
  });

  it('reports text after a closing quote and goes on with the next row', async () => {
    const text = lines('event_id,prompt', 'e1,"quoted"tail', 'e2,ok');
    expect(await parseCsvImport(text)).toEqual({
      rows: [{ line: 3, event: { event_id: 'e2', prompt: 'ok' } }],
      errors: [{ line: 2, detail: 'prompt: text after the closing quote' }],
    });
  });

  it('names the first bad field of a row whose earlier fields are quoted well', async () => {
    const text = lines(
      'event_id,prompt,model,error',
      '"e1","a ""b"", c","m"x,d"e',
      '"e2","two',
      'lines, ""quoted""",m,"x"',
    );
    expect(await parseCsvImport(text)).toEqual({
      rows: [
        {
          line: 3,
          event: { event_id: 'e2', prompt: 'two\nlines, "quoted"', model: 'm', error: 'x' },
        },
      ],
      errors: [{ line: 2, detail: 'model: text after the closing quote' }],
    });
  });

  it('reports an unterminated quote once, at the line its row starts on', async () => {
    const text = lines('event_id,prompt', 'e1,ok', 'e2,"never', 'closed', 'e3,lost');
    expect(await parseCsvImport(text)).toEqual({
      rows: [{ line: 2, event: { event_id: 'e1', prompt: 'ok' } }],
      errors: [{ line: 3, detail: 'prompt: quoted field is never closed' }],
    });
  });

  it('names the line of an unterminated quote opened after its row started', async () => {
    const text = lines('event_id,prompt,model', 'e1,"two', 'lines","m', 'e2,x,y');
    expect(await parseCsvImport(text)).toEqual({
      rows: [],
      errors: [{ line: 2, detail: 'model: quoted field opened on line 3 is never closed' }],
    });
  });

  it('reports a wrong number of fields', async () => {
    const text = lines('event_id,type,user_id', 'e1,exposure,u1,extra', 'e2,exposure', 'e3,a,u3');
    expect(await parseCsvImport(text)).toEqual({
      rows: [{ line: 4, event: { event_id: 'e3', type: 'a', user_id: 'u3' } }],
      errors: [
        { line: 2, detail: 'expected 3 fields, found 4' },
        { line: 3, detail: 'expected 3 fields, found 2' },
      ],
    });
    expect((await parseCsvImport(lines('user_id', 'a,b'))).errors).toEqual([
      { line: 2, detail: 'expected 1 field, found 2' },
    ]);
  });

  it('converts numeric columns and names the column of a bad number', async () => {
    const text = lines(
      'latency_ms,input_tokens,output_tokens,cost_usd,value',
      '12.5,100, 7 ,1e-3,-2',
      '12ms,1,2,3,4',
      '1,0x10,Infinity,.5,5.',
    );
    expect(await parseCsvImport(text)).toEqual({
      rows: [
        {
          line: 2,
          event: {
            latency_ms: 12.5,
            input_tokens: 100,
            output_tokens: 7,
            cost_usd: 0.001,
            value: -2,
          },
        },
      ],
      errors: [
        { line: 3, detail: 'latency_ms: not a number: "12ms"' },
        {
          line: 4,
          detail: 'input_tokens: not a number: "0x10"; output_tokens: not a number: "Infinity"',
        },
      ],
    });
  });

  it('parses metadata as a JSON object and reports bad JSON or a non-object', async () => {
    const text = lines(
      'event_id,metadata',
      'e1,"{""arbiter_test"":true,""n"":[1,2]}"',
      'e2,{not json}',
      'e3,[1]',
      'e4,null',
    );
    const parsed = await parseCsvImport(text);
    expect(parsed.rows).toEqual([
      { line: 2, event: { event_id: 'e1', metadata: { arbiter_test: true, n: [1, 2] } } },
    ]);
    expect(parsed.errors).toEqual([
      { line: 3, detail: expect.stringMatching(/^metadata: not valid JSON \(.+\)$/) },
      { line: 4, detail: 'metadata: must be a JSON object, found an array' },
      { line: 5, detail: 'metadata: must be a JSON object, found null' },
    ]);
  });

  it('leaves empty cells out and keeps other columns as strings', async () => {
    const text = lines('event_id,error,value,metadata,model', 'e1,"",,,', 'e2,timeout,,,"0"');
    expect((await parseCsvImport(text)).rows).toEqual([
      { line: 2, event: { event_id: 'e1' } },
      { line: 3, event: { event_id: 'e2', error: 'timeout', model: '0' } },
    ]);
  });

  it('takes any subset of columns in any order, with spaces around the names', async () => {
    const parsed = await parseCsvImport(lines(' value , user_id', '3,u'));
    expect(parsed.rows).toEqual([{ line: 2, event: { value: 3, user_id: 'u' } }]);
  });

  it('rejects unknown header names, naming them', async () => {
    const err = await formatError(() => parseCsvImport(lines('event_id,colour,size', 'e1,red,1')));
    expect(err.message).toBe(
      `line 1: the header row must name the columns; unknown column names "colour", "size" (known: ${CSV_COLUMNS.join(', ')})`,
    );
    expect(err.line).toBe(1);
  });

  it('rejects a data row where the header should be', async () => {
    const err = await formatError(() => parseCsvImport('e1,exposure\n'));
    expect(err.message).toMatch(
      /^line 1: the header row must name the columns; unknown column names "e1", "exposure"/,
    );
  });

  it('rejects duplicate header names', async () => {
    const err = await formatError(() => parseCsvImport('\n\nuser_id,type,user_id\n'));
    expect(err.message).toBe('line 3: duplicate column names in the header row: "user_id"');
  });

  it('rejects a payload without any header row', async () => {
    for (const text of ['', '\uFEFF', '\n\r\n']) {
      expect((await formatError(() => parseCsvImport(text))).message).toMatch(/^no header row/);
    }
  });

  it('rejects a header row with a syntax problem', async () => {
    const err = await formatError(() => parseCsvImport('user_id,"type\n'));
    expect(err.message).toBe('line 1: header row, column 2: quoted field is never closed');
  });
});

describe('parseJsonArrayImport', () => {
  it('reports bad elements at the line they start on and returns the others', async () => {
    const text = lines(
      '[',
      '  {"event_id": "e1"},',
      '  [1, 2],',
      '  {"event_id":',
      '    "e2"},',
      '  "text", 42, null,',
      '  {"event_id": oops},',
      '  {"event_id": "e3"}',
      ']',
    );
    const parsed = await parseJsonArrayImport(text);
    expect(parsed.rows).toEqual([
      { line: 2, index: 0, event: { event_id: 'e1' } },
      { line: 4, index: 2, event: { event_id: 'e2' } },
      { line: 8, index: 7, event: { event_id: 'e3' } },
    ]);
    // Three elements share line 6: the index tells them apart.
    expect(parsed.errors).toEqual([
      { line: 3, index: 1, detail: 'must be a JSON object, found an array' },
      { line: 6, index: 3, detail: 'must be a JSON object, found a string' },
      { line: 6, index: 4, detail: 'must be a JSON object, found a number' },
      { line: 6, index: 5, detail: 'must be a JSON object, found null' },
      { line: 7, index: 6, detail: expect.stringMatching(/^not valid JSON: /) },
    ]);
  });

  it('is not fooled by nesting or by brackets, quotes and escapes inside strings', async () => {
    const first = {
      event_id: 'e1',
      metadata: { a: [1, [2, { b: '],}{[' }]], c: { d: [] } },
      prompt: 'say "hi", then ] and } and \\ and\nnew lines\r\n',
    };
    const second = { event_id: 'e2', response: '\\"', metadata: { '[': '{' } };
    const pretty = JSON.stringify(first, null, 2);
    const text = `[${pretty},\n${JSON.stringify(second)}\n]`;
    expect(await parseJsonArrayImport(text)).toEqual({
      rows: [
        { line: 1, index: 0, event: first },
        { line: pretty.split('\n').length + 1, index: 1, event: second },
      ],
      errors: [],
    });
  });

  it('takes a BOM, CRLF line endings and an empty array', async () => {
    expect(
      (await parseJsonArrayImport('\uFEFF[\r\n{"a":1},\r\n\r\n{"b":2}\r\n]\r\n')).rows,
    ).toEqual([
      { line: 2, index: 0, event: { a: 1 } },
      { line: 4, index: 1, event: { b: 2 } },
    ]);
    expect(await parseJsonArrayImport(' [ \n ] \n')).toEqual({ rows: [], errors: [] });
  });

  it('reports a missing element and a trailing comma as row errors', async () => {
    const parsed = await parseJsonArrayImport(lines('[{"a":1},', ',', '{"b":2},', ']'));
    expect(parsed).toEqual({
      rows: [
        { line: 1, index: 0, event: { a: 1 } },
        { line: 3, index: 2, event: { b: 2 } },
      ],
      errors: [
        { line: 2, index: 1, detail: 'missing element before ,' },
        { line: 4, index: 3, detail: 'trailing comma before ]' },
      ],
    });
  });

  it('rejects a payload that is not an array', async () => {
    expect((await formatError(() => parseJsonArrayImport('\n{"events": []}'))).message).toBe(
      'line 2: expected a JSON array of events, found an object (send the array itself, not {"events": [...]})',
    );
    expect((await formatError(() => parseJsonArrayImport('"x"'))).message).toBe(
      'line 1: expected a JSON array of events',
    );
    expect((await formatError(() => parseJsonArrayImport(' \n '))).message).toBe(
      'empty payload: expected a JSON array of events',
    );
  });

  it('rejects a structurally broken array with the line of the problem', async () => {
    const cases: [string, string][] = [
      [lines('[', '{"a":1},', '{"b":2}'), 'line 1: the array is never closed'],
      [lines('[', '{"a":[1,2}', ']'), "line 2: '}' does not close the '[' opened on line 2"],
      [
        lines('[', '{"a":1},', '{"b":', '"x"', ']'),
        "line 5: ']' does not close the '{' opened on line 3",
      ],
      [lines('[', '{"a":1},', '{"b":', '"x"'), "line 3: '{' is never closed"],
      [lines('[', '{"a":"x}', ']'), 'line 2: string is never closed'],
      [lines('[{"a":1}]', 'trailing'), 'line 2: unexpected text after the closing ]'],
      [lines('[{"a":1}}'), "line 1: '}' without a matching '{'"],
    ];
    for (const [text, message] of cases) {
      expect((await formatError(() => parseJsonArrayImport(text))).message).toBe(message);
    }
  });
});

describe('parseNdjsonImport', () => {
  it('reads one object per line, reporting bad lines and skipping blank ones', async () => {
    const text = '\uFEFF{"event_id":"e1"}\r\n\r\n  \n{"event_id":\n[1]\r\n"s"\n{"event_id":"e2"}\n';
    const parsed = await parseNdjsonImport(text);
    expect(parsed.rows).toEqual([
      { line: 1, event: { event_id: 'e1' } },
      { line: 7, event: { event_id: 'e2' } },
    ]);
    expect(parsed.errors).toEqual([
      { line: 4, detail: expect.stringMatching(/^not valid JSON: /) },
      { line: 5, detail: 'must be a JSON object, found an array' },
      { line: 6, detail: 'must be a JSON object, found a string' },
    ]);
  });

  it('returns nothing for an empty payload', async () => {
    expect(await parseNdjsonImport('')).toEqual({ rows: [], errors: [] });
  });
});

describe('row cap', () => {
  const payloads = (rows: number) => ({
    csv: () => parseCsvImport(`user_id\n${'u\n'.repeat(rows)}`),
    json: () => parseJsonArrayImport(`[${Array(rows).fill('{}').join(',')}]`),
    ndjson: () => parseNdjsonImport('{}\n'.repeat(rows)),
  });

  it(`accepts ${IMPORT_MAX_ROWS} rows in every format`, async () => {
    for (const parse of Object.values(payloads(IMPORT_MAX_ROWS))) {
      expect((await parse()).rows).toHaveLength(IMPORT_MAX_ROWS);
    }
  });

  it('rejects one row more, bad rows included', async () => {
    for (const parse of Object.values(payloads(IMPORT_MAX_ROWS + 1))) {
      expect((await formatError(parse)).message).toBe(
        `more than ${IMPORT_MAX_ROWS} rows; split the import into several requests`,
      );
    }
    const bad = `user_id\n${'"a"b\n'.repeat(IMPORT_MAX_ROWS + 1)}`;
    await expect(parseCsvImport(bad)).rejects.toThrow(ImportFormatError);
  });
});

describe('CSV round trip (property)', () => {
  /** RFC 4180 writer: quotes when it must, or always when asked. */
  function field(cell: string, quoteAlways: boolean): string {
    return quoteAlways || /[",\r\n]/.test(cell) ? `"${cell.replaceAll('"', '""')}"` : cell;
  }

  const awkward = fc.constantFrom(
    ',',
    '"',
    '\r',
    '\n',
    '\r\n',
    ' ',
    '\t',
    'a',
    'Z',
    '0',
    'é',
    '€',
    '😀',
    '\u2028',
  );
  const text = fc.oneof(fc.string({ unit: awkward }), fc.string({ unit: 'grapheme' }), fc.string());
  const number = fc
    .oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }))
    .filter((n) => !Object.is(n, -0));
  const metadata = fc.dictionary(
    fc.string({ unit: awkward }),
    fc.oneof(fc.string({ unit: awkward }), fc.integer(), fc.boolean(), fc.constant(null)),
  );
  const valueFor = (column: CsvColumn): fc.Arbitrary<unknown> =>
    column in NUMERIC_DOMAINS ? number : column === 'metadata' ? metadata : text;

  const layout = fc.record({
    eol: fc.constantFrom('\n', '\r\n'),
    blankLinesBefore: fc.nat(2),
    quoteAlways: fc.boolean(),
  });

  const scenario = fc.shuffledSubarray([...CSV_COLUMNS], { minLength: 1 }).chain((header) =>
    fc.record({
      header: fc.constant(header),
      rows: fc.array(
        fc.record({
          values: fc.tuple(...header.map((c) => fc.option(valueFor(c), { nil: undefined }))),
          layout,
        }),
        { maxLength: 15 },
      ),
      bom: fc.boolean(),
      trailingNewline: fc.boolean(),
    }),
  );

  it('parses back what a CSV writer wrote, with the line each row starts on', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async ({ header, rows, bom, trailingNewline }) => {
        let out = `${header.join(',')}\n`;
        const expected = rows.map(({ values, layout }, i) => {
          out += layout.eol.repeat(layout.blankLinesBefore);
          const line = out.split('\n').length;
          const cells = values.map((v) =>
            v === undefined
              ? ''
              : typeof v === 'string'
                ? v
                : typeof v === 'number'
                  ? String(v)
                  : JSON.stringify(v),
          );
          // A lone empty unquoted cell would be a blank line, which the parser skips.
          const quoteAlways = layout.quoteAlways || (cells.length === 1 && cells[0] === '');
          out += cells.map((c) => field(c, quoteAlways)).join(',');
          if (trailingNewline || i < rows.length - 1) out += layout.eol;
          const event: Record<string, unknown> = {};
          header.forEach((column, j) => {
            const v = values[j];
            if (v !== undefined && v !== '') event[column] = v;
          });
          return { line, event };
        });
        const text = (bom ? '\uFEFF' : '') + out;
        const parsed = await parseCsvImport(text);
        expect(parsed.errors).toEqual([]);
        expect(parsed.rows).toEqual(expected);
        // Read a few bytes at a time, a record split across chunks reads the same.
        expect(await csvRecords(text, new TimeSlice(), 3)).toEqual(await csvRecords(text));
      }),
      { numRuns: 300 },
    );
  });
});

describe('CSV read a chunk at a time', () => {
  // Each breaks somewhere a chunk boundary can fall: inside quotes, between CR and LF, inside a
  // doubled quote, after a closing quote, in an unterminated quote, in a multi-byte character.
  const texts = [
    lines('event_id,prompt', 'e1,"a\r\nb ""q"" c"', 'e2,plain'),
    'user_id,type\r\nu1,exposure\r\n\r\nu2,model_call\r\n',
    lines('user_id,prompt', 'u1,"x"y', 'u2,ok', 'u3,"never closed', 'u4,z'),
    lines('user_id,prompt', 'u1,é€😀', 'u2,a"b'),
  ];
  it('gives the same records, lines and problems with any chunk size', async () => {
    for (const text of texts) {
      const whole = await csvRecords(text);
      for (const size of [1, 2, 3, 5, 7]) {
        expect(await csvRecords(text, new TimeSlice(), size)).toEqual(whole);
      }
    }
  });
  it('yields to the event loop between chunks once the slice is used up', async () => {
    let turns = 0;
    const ticker = setInterval(() => turns++, 0);
    // A slice of zero milliseconds is always used up: every chunk is a turn of the loop.
    await csvRecords(
      lines('user_id', ...Array.from({ length: 2000 }, (_, i) => `u${i}`)),
      new TimeSlice(0),
      64,
    );
    clearInterval(ticker);
    expect(turns).toBeGreaterThan(0);
  });
});
