import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startTracing, withSpan } from '../../../src/observability/tracing.js';

const root = join(import.meta.dirname, '../../..');

function sources(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return /\.(ts|cts|mts)$/.test(entry.name) ? [path] : [];
  });
}

describe('tracing off costs nothing', () => {
  it('loads OpenTelemetry only through the dynamic import in startTracing', () => {
    const files = [...sources('src'), ...sources('cli')].map((file) => ({ file: relative(root, join(root, file)), text: readFileSync(join(root, file), 'utf8') }));
    expect(files.filter(({ text }) => /from '@opentelemetry\//.test(text) || /import\('@opentelemetry\//.test(text)).map(({ file }) => file)).toEqual(['src/observability/open-telemetry.ts']);
    const loaders = files.filter(({ text }) => text.includes('open-telemetry.js'));
    expect(loaders.map(({ file }) => file)).toEqual(['src/observability/tracing.ts']);
    expect(loaders[0]?.text).not.toMatch(/from '\.\/open-telemetry\.js'/);
    expect(loaders[0]?.text).toContain("await import('./open-telemetry.js')");
  });

  it('without an endpoint starts nothing: spans just run their body and no trace headers are sent', async () => {
    expect(await startTracing({ endpoint: undefined, serviceName: 'booking-service', serviceVersion: '0.0.0' })).toBeUndefined();
    expect(
      await withSpan(
        'unit of work',
        'internal',
        {},
        async (span) => {
          span.setAttribute('x', 1);
          return 42;
        },
        'request-1',
      ),
    ).toBe(42);
    await expect(withSpan('webhook delivery', 'client', {}, () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await withSpan('webhook delivery', 'client', {}, async (span) => span.traceHeaders())).toEqual({});
  });

  it('OTEL_SDK_DISABLED=true keeps it off even with an endpoint', async () => {
    expect(await startTracing({ endpoint: 'http://127.0.0.1:4318', serviceName: 'booking-service', serviceVersion: '0.0.0', env: { OTEL_SDK_DISABLED: 'true' } })).toBeUndefined();
  });
});
