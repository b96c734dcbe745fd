import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module script of the repository, without type declarations.
import { otlpTraceDescriptor } from '../../../../scripts/otlp-descriptor.mjs';
import { OTLP_TRACE_DESCRIPTOR } from '../../src/ingest/otlp/trace-descriptor.ts';

describe('the OTLP trace descriptor', () => {
  it('is what the opentelemetry-proto files in apps/server/proto define', () => {
    // After a change of the .proto files: node scripts/otlp-descriptor.mjs
    expect(OTLP_TRACE_DESCRIPTOR).toEqual(otlpTraceDescriptor());
  });
});
