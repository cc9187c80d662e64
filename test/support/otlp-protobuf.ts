/**
 * Reads an OTLP/HTTP protobuf trace export (`ExportTraceServiceRequest`,
 * opentelemetry-proto `collector/trace/v1`) into the shape of its JSON encoding, so a test
 * receiver reads both encodings with one code path. Only what tests look at is decoded:
 * span ids, name, kind, start time and attributes with scalar values. The benchmark's sink,
 * which shares a thread with the load generator, walks the fields it counts instead
 * ({@link walkSpans}, {@link walkFields}) and builds nothing.
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

/** A varint at `at` as a number (exact up to 2^53: keys, lengths, kinds) and where the next field starts. */
function readVarint(buffer: Buffer, at: number, end: number): { value: number; next: number } {
  let value = 0;
  for (let i = at, scale = 1; i < end && i < at + 10; i += 1, scale *= 128) {
    const byte = buffer[i] ?? 0;
    value += (byte & 0x7f) * scale;
    if ((byte & 0x80) === 0) return { value, next: i + 1 };
  }
  throw new Error('truncated varint');
}

/** A varint's exact 64 bits, for int64 values. */
function readBigVarint(buffer: Buffer, at: number): bigint {
  let value = 0n;
  for (let i = at, shift = 0n; i < buffer.length; i += 1, shift += 7n) {
    const byte = buffer[i] ?? 0;
    value |= BigInt(byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) break;
  }
  return value;
}

/**
 * Calls `visit` with each field of the message in `buffer[start, end)`, in order and
 * without copying: its number and wire type, where its value lies (`from`, `to`; for a
 * varint the bytes of the varint) and, for a varint, its value as a number.
 */
export function walkFields(buffer: Buffer, start: number, end: number, visit: (number: number, wireType: number, from: number, to: number, varint: number) => void): void {
  let at = start;
  while (at < end) {
    const key = readVarint(buffer, at, end);
    const number = Math.floor(key.value / 8);
    const wireType = key.value % 8;
    at = key.next;
    if (wireType === 0) {
      const { value, next } = readVarint(buffer, at, end);
      visit(number, wireType, at, next, value);
      at = next;
    } else if (wireType === 2) {
      const length = readVarint(buffer, at, end);
      const to = length.next + length.value;
      if (to > end) throw new Error('truncated length-delimited field');
      visit(number, wireType, length.next, to, 0);
      at = to;
    } else if (wireType === 1 || wireType === 5) {
      const to = at + (wireType === 1 ? 8 : 4);
      if (to > end) throw new Error('truncated fixed-width field');
      visit(number, wireType, at, to, 0);
      at = to;
    } else {
      throw new Error(`unsupported wire type ${wireType}`);
    }
  }
}

/** What {@link walkSpans} reports, in document order: a new `ResourceSpans`, a new `ScopeSpans`, and each span's bounds. */
export interface SpanVisitor {
  resource?(): void;
  scope?(): void;
  span(from: number, to: number): void;
}

/** Walks an export's `resourceSpans` (field 1) → `scopeSpans` (2) → `spans` (2). */
export function walkSpans(body: Buffer, visitor: SpanVisitor): void {
  walkFields(body, 0, body.length, (resourceField, resourceType, resourceFrom, resourceTo) => {
    if (resourceField !== 1 || resourceType !== 2) return;
    visitor.resource?.();
    walkFields(body, resourceFrom, resourceTo, (scopeField, scopeType, scopeFrom, scopeTo) => {
      if (scopeField !== 2 || scopeType !== 2) return;
      visitor.scope?.();
      walkFields(body, scopeFrom, scopeTo, (spanField, spanType, spanFrom, spanTo) => {
        if (spanField === 2 && spanType === 2) visitor.span(spanFrom, spanTo);
      });
    });
  });
}

function anyValue(body: Buffer, from: number, to: number): OtlpJsonValue {
  let value: OtlpJsonValue = {};
  walkFields(body, from, to, (number, _wireType, valueFrom, valueTo, varint) => {
    if (number === 1) value = { stringValue: body.toString('utf8', valueFrom, valueTo) };
    else if (number === 2) value = { boolValue: varint === 1 };
    else if (number === 3) value = { intValue: BigInt.asIntN(64, readBigVarint(body, valueFrom)).toString() };
    else if (number === 4) value = { doubleValue: body.readDoubleLE(valueFrom) };
  });
  return value;
}

function span(body: Buffer, from: number, to: number): OtlpJsonSpan {
  let traceId = '';
  let spanId = '';
  let parentSpanId = '';
  let name = '';
  let kind = 0;
  let startTimeUnixNano = '0';
  const attributes: { key: string; value: OtlpJsonValue }[] = [];
  walkFields(body, from, to, (number, _wireType, valueFrom, valueTo, varint) => {
    if (number === 1) traceId = body.toString('hex', valueFrom, valueTo);
    else if (number === 2) spanId = body.toString('hex', valueFrom, valueTo);
    else if (number === 4) parentSpanId = body.toString('hex', valueFrom, valueTo);
    else if (number === 5) name = body.toString('utf8', valueFrom, valueTo);
    else if (number === 6) kind = varint;
    else if (number === 7) startTimeUnixNano = body.readBigUInt64LE(valueFrom).toString();
    else if (number === 9) {
      let key = '';
      let value: OtlpJsonValue = {};
      walkFields(body, valueFrom, valueTo, (field, _type, fieldFrom, fieldTo) => {
        if (field === 1) key = body.toString('utf8', fieldFrom, fieldTo);
        else if (field === 2) value = anyValue(body, fieldFrom, fieldTo);
      });
      attributes.push({ key, value });
    }
  });
  return { traceId, spanId, ...(parentSpanId === '' ? {} : { parentSpanId }), name, kind, startTimeUnixNano, attributes };
}

/** Decodes an `ExportTraceServiceRequest`; throws on bytes that are not a well-formed message. */
export function decodeTraceExport(body: Buffer): OtlpJsonExport {
  const resourceSpans: { scopeSpans: { spans: OtlpJsonSpan[] }[] }[] = [];
  let scopes: { spans: OtlpJsonSpan[] }[] = [];
  let spans: OtlpJsonSpan[] = [];
  walkSpans(body, {
    resource: () => resourceSpans.push({ scopeSpans: (scopes = []) }),
    scope: () => scopes.push({ spans: (spans = []) }),
    span: (from, to) => spans.push(span(body, from, to)),
  });
  return { resourceSpans };
}
