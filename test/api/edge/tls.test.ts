import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:tls';
import type { SecureVersion } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';

/** Outcome of a handshake limited to one protocol version. */
function handshake(port: number, version: SecureVersion): Promise<string> {
  return new Promise((resolve) => {
    // SECLEVEL=0 lets this client offer TLS 1.1 at all, so a refusal is the server's.
    const socket = connect({ host: '127.0.0.1', port, minVersion: version, maxVersion: version, rejectUnauthorized: false, ciphers: 'DEFAULT@SECLEVEL=0' }, () => {
      const protocol = socket.getProtocol() ?? 'unknown';
      socket.end();
      resolve(protocol);
    });
    socket.on('error', (error: NodeJS.ErrnoException) => resolve(`refused: ${error.code ?? error.message}`));
  });
}

describe('TLS served by the service', () => {
  let dir: string;
  let h: Harness;
  let port: number;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tls-'));
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', '/CN=localhost', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')],
      { stdio: 'ignore' },
    );
    h = await createHarness('sqlite', { env: { TLS_CERT_FILE: join(dir, 'cert.pem'), TLS_KEY_FILE: join(dir, 'key.pem') } });
    await h.app.server.listen({ port: 0, host: '127.0.0.1' });
    const address = h.app.server.server.address();
    port = typeof address === 'object' && address ? address.port : 0;
  });
  afterAll(async () => {
    await h?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses TLS 1.1 and accepts TLS 1.2 and 1.3', async () => {
    expect(await handshake(port, 'TLSv1.1')).toMatch(/^refused/);
    expect(await handshake(port, 'TLSv1.2')).toBe('TLSv1.2');
    expect(await handshake(port, 'TLSv1.3')).toBe('TLSv1.3');
  });

  it('answers HTTPS requests', async () => {
    const res = await new Promise<number>((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port, rejectUnauthorized: false, ca: readFileSync(join(dir, 'cert.pem')) }, () => {
        socket.write('GET /health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n');
      });
      let text = '';
      socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
      socket.on('end', () => resolve(Number(text.split(' ')[1])));
      socket.on('error', reject);
    });
    expect(res).toBe(200);
  });
});
