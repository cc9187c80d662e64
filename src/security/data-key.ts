import { createCipheriv, createDecipheriv, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureDataDir } from '../lib/data-dir.js';

/**
 * The service's data key: encrypts secrets at rest (TOTP keys) and keys the HMACs of
 * one-time codes, so a copy of the database alone reveals neither. From `DATA_KEY`
 * (`DATA_KEY_FILE`) — 32 bytes, base64 — or generated once into `DATA_DIR/data-key`.
 */
export class DataKey {
  private constructor(private readonly key: Buffer) {}

  static open(options: { readonly dataKey?: string | undefined; readonly dataDir: string }): DataKey {
    if (options.dataKey !== undefined) {
      const key = Buffer.from(options.dataKey, 'base64');
      if (key.length !== 32) throw new Error('DATA_KEY must be the base64 of 32 random bytes (openssl rand -base64 32)');
      return new DataKey(key);
    }
    const file = join(options.dataDir, 'data-key');
    if (!existsSync(file)) {
      ensureDataDir(options.dataDir);
      try {
        writeFileSync(file, randomBytes(32).toString('base64'), { mode: 0o600, flag: 'wx' });
      } catch (error) {
        // Another process made it first: use theirs.
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      chmodSync(file, 0o600);
    }
    return DataKey.open({ dataKey: readFileSync(file, 'utf8').trim(), dataDir: options.dataDir });
  }

  /** AES-256-GCM: `iv.ciphertext.tag`, base64url. */
  encrypt(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [iv, body, cipher.getAuthTag()].map((part) => part.toString('base64url')).join('.');
  }

  decrypt(sealed: string): string {
    const [iv, body, tag] = sealed.split('.').map((part) => Buffer.from(part, 'base64url'));
    if (!iv || !body || !tag) throw new Error('sealed value is malformed');
    const decipher = createDecipheriv('aes-256-gcm', this.key, iv);
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
  }

  /** HMAC-SHA256 of `parts`, base64url. */
  mac(...parts: readonly string[]): string {
    const hmac = createHmac('sha256', this.key);
    for (const part of parts) hmac.update(`${part.length}:${part}`);
    return hmac.digest('base64url');
  }

  /** Whether `candidate` is the MAC of `parts`, compared in constant time. */
  verifyMac(candidate: string, ...parts: readonly string[]): boolean {
    const expected = Buffer.from(this.mac(...parts));
    const given = Buffer.from(candidate);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
}
