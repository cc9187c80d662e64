import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { openTelemetry } from '../../../src/observability/open-telemetry.js';
import { decodeTraceExport } from '../../support/otlp-protobuf.js';

/** Each export a collector got: content type and body. */
const exports: { contentType: string | undefined; body: Buffer }[] = [];
const collector = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    exports.push({ contentType: req.headers['content-type'], body: Buffer.concat(chunks) });
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
});
const endpoint = new Promise<string>((resolve) => collector.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(collector.address() as AddressInfo).port}`)));
afterAll(() => new Promise((resolve) => collector.close(resolve)));

/** Traces one span with `env` and answers the export the collector got for it. */
async function exportOneSpan(env: Record<string, string>): Promise<{ contentType: string | undefined; body: Buffer }> {
  const before = exports.length;
  const tracing = openTelemetry({ endpoint: await endpoint, serviceName: 'booking-service', serviceVersion: '0.0.0', env });
  await tracing.inSpan('unit of work', 'internal', { 'db.system.name': 'sqlite' }, null, () => Promise.resolve());
  await tracing.shutdown();
  const got = exports[before];
  if (!got) throw new Error('the collector got nothing');
  return got;
}

describe('OTEL_EXPORTER_OTLP_PROTOCOL', () => {
  it('exports OTLP protobuf by default (the spec default), which a collector decodes', async () => {
    const { contentType, body } = await exportOneSpan({});
    expect(contentType).toBe('application/x-protobuf');
    const spans = decodeTraceExport(body).resourceSpans.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans));
    expect(spans.map(({ name, attributes }) => ({ name, attributes }))).toEqual([{ name: 'unit of work', attributes: [{ key: 'db.system.name', value: { stringValue: 'sqlite' } }] }]);
  });

  it('exports OTLP/JSON when asked to', async () => {
    const { contentType, body } = await exportOneSpan({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' });
    expect(contentType).toBe('application/json');
    expect(JSON.stringify(JSON.parse(body.toString('utf8')))).toContain('"name":"unit of work"');
  });
});
