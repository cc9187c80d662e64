import { readFileSync } from 'node:fs';
import type { SecureContextOptions } from 'node:tls';
import type { Config } from '../config/config.js';

/** Forward-secret AEAD suites for TLS 1.2 (TLS 1.3 suites are always modern). */
const tls12Ciphers = [
  'ECDHE-ECDSA-AES128-GCM-SHA256',
  'ECDHE-RSA-AES128-GCM-SHA256',
  'ECDHE-ECDSA-AES256-GCM-SHA384',
  'ECDHE-RSA-AES256-GCM-SHA384',
  'ECDHE-ECDSA-CHACHA20-POLY1305',
  'ECDHE-RSA-CHACHA20-POLY1305',
].join(':');

export interface HttpsOptions extends SecureContextOptions {
  readonly minVersion: 'TLSv1.2';
}

/**
 * HTTPS options when `TLS_CERT_FILE` and `TLS_KEY_FILE` are set: TLS 1.2 as the floor,
 * modern ciphers only, server cipher order. `undefined` means plain HTTP (behind a proxy
 * that terminates TLS).
 */
export function httpsOptions(config: Pick<Config, 'tlsCertFile' | 'tlsKeyFile'>, read: (path: string) => string = (p) => readFileSync(p, 'utf8')): HttpsOptions | undefined {
  if (!config.tlsCertFile && !config.tlsKeyFile) return undefined;
  if (!config.tlsCertFile || !config.tlsKeyFile) throw new Error('set both TLS_CERT_FILE and TLS_KEY_FILE, or neither');
  return { cert: read(config.tlsCertFile), key: read(config.tlsKeyFile), minVersion: 'TLSv1.2', ciphers: tls12Ciphers, honorCipherOrder: true };
}
