/** The two bodies OTLP/HTTP defines: binary protobuf and OTLP JSON. */
export type OtlpEncoding = 'protobuf' | 'json';

/** An attribute's value as plain data: a kvlist becomes an object, bytes become base64 text. */
export type AttributeValue =
  | string
  | number
  | boolean
  | null
  | AttributeValue[]
  | { [key: string]: AttributeValue };

export type Attributes = ReadonlyMap<string, AttributeValue>;

/** One span as the GenAI mapping reads it, whichever encoding it came in. */
export interface OtlpSpan {
  /** Lowercase hex, 32 digits; null when the span carried no valid trace id. */
  traceId: string | null;
  /** Lowercase hex, 16 digits; null when the span carried no valid span id. */
  spanId: string | null;
  startNs: bigint | null;
  endNs: bigint | null;
  /** 0 unset, 1 ok, 2 error. */
  statusCode: number;
  statusMessage: string;
  attributes: Attributes;
  resource: Attributes;
  events: ReadonlyArray<{ name: string; attributes: Attributes }>;
}
