/**
 * Reads an OTLP/HTTP protobuf trace export (`ExportTraceServiceRequest`,
 * opentelemetry-proto `collector/trace/v1`) into the shape of its JSON encoding, so a test
 * receiver or the benchmark's sink reads both encodings with one code path. Only what they
 * look at is decoded: span ids, name, kind, start time and attributes with scalar values.
 */

/** An attribute value as OTLP/JSON writes it (64-bit integers as decimal strings). */
export interface OtlpJsonValue {
  readonly stringValue?: string;
  readonly boolValue?: boolean;
  readonly intValue?: string;
  readonly doubleValue?: number;
}

export interface OtlpJsonSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly name: string;
  readonly kind: number;
  readonly startTimeUnixNano: string;
  readonly attributes: readonly { readonly key: string; readonly value: OtlpJsonValue }[];
}

export interface OtlpJsonExport {
  readonly resourceSpans: readonly { readonly scopeSpans: readonly { readonly spans: readonly OtlpJsonSpan[] }[] }[];
}

/** One field of a protobuf message: its number and its value by wire type. */
interface Field {
  readonly number: number;
  /** Wire type 0 (varint). */
  readonly varint?: bigint;
  /** Wire types 1, 2 and 5: the raw bytes (8, length-delimited, 4). */
  readonly bytes?: Buffer;
}

function readVarint(buffer: Buffer, at: number): { value: bigint; next: number } {
  let value = 0n;
  let shift = 0n;
  for (let i = at; i < buffer.length && i < at + 10; i += 1) {
    const byte = buffer[i] ?? 0;
    value |= BigInt(byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) return { value, next: i + 1 };
    shift += 7n;
  }
  throw new Error('truncated varint');
}

/** The fields of one message, in order (repeated fields appear once per value). */
function fields(buffer: Buffer): Field[] {
  const out: Field[] = [];
  let at = 0;
  while (at < buffer.length) {
    const key = readVarint(buffer, at);
    at = key.next;
    const number = Number(key.value >> 3n);
    const wireType = Number(key.value & 7n);
    if (wireType === 0) {
      const { value, next } = readVarint(buffer, at);
      out.push({ number, varint: value });
      at = next;
    } else if (wireType === 2) {
      const length = readVarint(buffer, at);
      const end = length.next + Number(length.value);
      if (end > buffer.length) throw new Error('truncated length-delimited field');
      out.push({ number, bytes: buffer.subarray(length.next, end) });
      at = end;
    } else if (wireType === 1 || wireType === 5) {
      const size = wireType === 1 ? 8 : 4;
      if (at + size > buffer.length) throw new Error('truncated fixed-width field');
      out.push({ number, bytes: buffer.subarray(at, at + size) });
      at += size;
    } else {
      throw new Error(`unsupported wire type ${wireType}`);
    }
  }
  return out;
}

const messages = (message: Buffer, number: number): Buffer[] => fields(message).flatMap((field) => (field.number === number && field.bytes ? [field.bytes] : []));
const first = (message: Buffer, number: number): Field | undefined => fields(message).find((field) => field.number === number);

function anyValue(message: Buffer): OtlpJsonValue {
  const field = fields(message)[0];
  if (!field) return {};
  switch (field.number) {
    case 1:
      return { stringValue: field.bytes?.toString('utf8') ?? '' };
    case 2:
      return { boolValue: field.varint === 1n };
    case 3:
      return { intValue: BigInt.asIntN(64, field.varint ?? 0n).toString() };
    case 4:
      return { doubleValue: field.bytes?.readDoubleLE(0) ?? 0 };
    default:
      return {};
  }
}

function span(message: Buffer): OtlpJsonSpan {
  const hex = (number: number) => first(message, number)?.bytes?.toString('hex') ?? '';
  const parentSpanId = hex(4);
  return {
    traceId: hex(1),
    spanId: hex(2),
    ...(parentSpanId === '' ? {} : { parentSpanId }),
    name: first(message, 5)?.bytes?.toString('utf8') ?? '',
    kind: Number(first(message, 6)?.varint ?? 0n),
    startTimeUnixNano: (first(message, 7)?.bytes?.readBigUInt64LE(0) ?? 0n).toString(),
    attributes: messages(message, 9).map((keyValue) => {
      const value = first(keyValue, 2)?.bytes;
      return { key: first(keyValue, 1)?.bytes?.toString('utf8') ?? '', value: value ? anyValue(value) : {} };
    }),
  };
}

/** Decodes an `ExportTraceServiceRequest`; throws on bytes that are not a well-formed message. */
export function decodeTraceExport(body: Buffer): OtlpJsonExport {
  return {
    resourceSpans: messages(body, 1).map((resourceSpans) => ({
      scopeSpans: messages(resourceSpans, 2).map((scopeSpans) => ({ spans: messages(scopeSpans, 2).map(span) })),
    })),
  };
}
