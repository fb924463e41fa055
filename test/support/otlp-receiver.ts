/**
 * An OTLP/HTTP trace receiver on loopback, for tests: it takes `POST /v1/traces` as the
 * collector does — `application/json` (OTLP/JSON) or `application/x-protobuf` (the protobuf
 * encoding of `ExportTraceServiceRequest`, decoded here by hand from the wire format, so the
 * check does not share code with the exporter) — and keeps every span it was sent, with the
 * request's headers.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** '' for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, unknown>;
  /** OTLP's status code: 0 unset, 1 ok, 2 error. */
  status: { code: number; message: string };
  resource: Record<string, unknown>;
  scope: string;
}

export interface ReceivedExport {
  contentType: string;
  headers: IncomingHttpHeaders;
  path: string;
}

export class OTLPReceiver {
  readonly spans: ReceivedSpan[] = [];
  readonly exports: ReceivedExport[] = [];
  private constructor(
    private readonly server: Server,
    readonly endpoint: string,
  ) {}

  static async start(): Promise<OTLPReceiver> {
    let receiver: OTLPReceiver | undefined;
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const body = Buffer.concat(chunks);
        const contentType = String(request.headers['content-type'] ?? '');
        receiver?.exports.push({ contentType, headers: request.headers, path: request.url ?? '' });
        try {
          const spans = contentType.includes('json') ? fromJSON(JSON.parse(body.toString('utf8'))) : fromProtobuf(body);
          receiver?.spans.push(...spans);
          response.writeHead(200, { 'content-type': contentType.includes('json') ? 'application/json' : 'application/x-protobuf' });
          response.end(contentType.includes('json') ? '{}' : '');
        } catch (error) {
          response.writeHead(400, { 'content-type': 'text/plain' });
          response.end(String(error));
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    receiver = new OTLPReceiver(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return receiver;
  }

  /** Forgets what it received. */
  clear(): void {
    this.spans.length = 0;
    this.exports.length = 0;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

// --- OTLP/JSON --------------------------------------------------------------------------

type JSONValue = { stringValue?: string; boolValue?: boolean; intValue?: number | string; doubleValue?: number; arrayValue?: { values?: JSONValue[] } };
type JSONAttribute = { key: string; value: JSONValue };

function jsonValue(value: JSONValue): unknown {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(jsonValue);
  return undefined;
}

function jsonAttributes(attributes: JSONAttribute[] | undefined): Record<string, unknown> {
  return Object.fromEntries((attributes ?? []).map(({ key, value }) => [key, jsonValue(value)]));
}

function fromJSON(body: {
  resourceSpans?: {
    resource?: { attributes?: JSONAttribute[] };
    scopeSpans?: {
      scope?: { name?: string };
      spans?: {
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind: number;
        attributes?: JSONAttribute[];
        status?: { code?: number; message?: string };
      }[];
    }[];
  }[];
}): ReceivedSpan[] {
  return (body.resourceSpans ?? []).flatMap((resourceSpans) =>
    (resourceSpans.scopeSpans ?? []).flatMap((scopeSpans) =>
      (scopeSpans.spans ?? []).map((span) => ({
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId ?? '',
        name: span.name,
        kind: span.kind,
        attributes: jsonAttributes(span.attributes),
        status: { code: span.status?.code ?? 0, message: span.status?.message ?? '' },
        resource: jsonAttributes(resourceSpans.resource?.attributes),
        scope: scopeSpans.scope?.name ?? '',
      })),
    ),
  );
}

// --- protobuf wire format ----------------------------------------------------------------

/** One field of a message: its number, and its value (a varint, 64 bits, or bytes). */
type Field = { field: number; varint?: bigint; fixed64?: Buffer; bytes?: Buffer };

/** The fields of a protobuf message, in order. */
function fields(buffer: Buffer): Field[] {
  const out: Field[] = [];
  let offset = 0;
  const varint = (): bigint => {
    let result = 0n;
    for (let shift = 0n; ; shift += 7n) {
      const byte = buffer[offset++];
      if (byte === undefined) throw new Error('truncated varint');
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
    }
  };
  while (offset < buffer.length) {
    const key = Number(varint());
    const field = key >>> 3;
    switch (key & 7) {
      case 0:
        out.push({ field, varint: varint() });
        break;
      case 1:
        out.push({ field, fixed64: buffer.subarray(offset, offset + 8) });
        offset += 8;
        break;
      case 2: {
        const length = Number(varint());
        out.push({ field, bytes: buffer.subarray(offset, offset + length) });
        offset += length;
        break;
      }
      case 5:
        offset += 4;
        break;
      default:
        throw new Error(`wire type ${key & 7} is not protobuf's`);
    }
  }
  return out;
}

const each = (list: Field[], field: number): Field[] => list.filter((each) => each.field === field);
const bytesOf = (list: Field[], field: number): Buffer => each(list, field)[0]?.bytes ?? Buffer.alloc(0);
const text = (list: Field[], field: number): string => bytesOf(list, field).toString('utf8');

/** An `AnyValue`: string 1, bool 2, int 3, double 4, array 5. */
function anyValue(buffer: Buffer): unknown {
  const [value] = fields(buffer);
  if (value === undefined) return undefined;
  switch (value.field) {
    case 1:
      return value.bytes?.toString('utf8');
    case 2:
      return value.varint === 1n;
    case 3:
      return Number(BigInt.asIntN(64, value.varint ?? 0n));
    case 4:
      return value.fixed64?.readDoubleLE(0);
    case 5:
      return each(fields(value.bytes ?? Buffer.alloc(0)), 1).map((item) => anyValue(item.bytes ?? Buffer.alloc(0)));
    default:
      return undefined;
  }
}

/** Repeated `KeyValue` (key 1, value 2) at `field`. */
function attributes(list: Field[], field: number): Record<string, unknown> {
  return Object.fromEntries(
    each(list, field).map((entry) => {
      const pair = fields(entry.bytes ?? Buffer.alloc(0));
      return [text(pair, 1), anyValue(bytesOf(pair, 2))];
    }),
  );
}

/** `ExportTraceServiceRequest`: resource_spans 1 → resource 1 (attributes 1), scope_spans 2 → scope 1 (name 1), spans 2. */
function fromProtobuf(body: Buffer): ReceivedSpan[] {
  return each(fields(body), 1).flatMap((resourceSpans) => {
    const resourceFields = fields(resourceSpans.bytes ?? Buffer.alloc(0));
    const resource = attributes(fields(bytesOf(resourceFields, 1)), 1);
    return each(resourceFields, 2).flatMap((scopeSpans) => {
      const scopeFields = fields(scopeSpans.bytes ?? Buffer.alloc(0));
      const scope = text(fields(bytesOf(scopeFields, 1)), 1);
      return each(scopeFields, 2).map((spanField): ReceivedSpan => {
        // Span: trace_id 1, span_id 2, parent_span_id 4, name 5, kind 6, attributes 9, status 15 (message 2, code 3).
        const span = fields(spanField.bytes ?? Buffer.alloc(0));
        const status = fields(bytesOf(span, 15));
        return {
          traceId: bytesOf(span, 1).toString('hex'),
          spanId: bytesOf(span, 2).toString('hex'),
          parentSpanId: bytesOf(span, 4).toString('hex'),
          name: text(span, 5),
          kind: Number(each(span, 6)[0]?.varint ?? 0n),
          attributes: attributes(span, 9),
          status: { code: Number(each(status, 3)[0]?.varint ?? 0n), message: text(status, 2) },
          resource,
          scope,
        };
      });
    });
  });
}
