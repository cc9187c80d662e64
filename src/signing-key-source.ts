import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from './config/config.js';
import type { Es512Signer } from './security/es512-signer.js';
import { SigningKeyStore } from './security/signing-keys.js';
import { ensureDataDir } from './lib/data-dir.js';

/**
 * The access-token signing keys: the operator's JWKS from `SIGNING_KEYS_FILE`, or a key
 * generated on first start and kept in `DATA_DIR/signing-keys.json` (mode 0600).
 */
export function openSigningKeys(
  config: Pick<Config, 'signingKeysFile' | 'dataDir' | 'accessTokenTtlSeconds' | 'signingKeyPublishDelaySeconds'>,
  now: number,
  signer?: Es512Signer,
): Promise<SigningKeyStore> {
  const options = { retentionSeconds: 2 * config.accessTokenTtlSeconds, publishDelaySeconds: config.signingKeyPublishDelaySeconds, ...(signer ? { signer } : {}) };
  const path = config.signingKeysFile;
  if (path) {
    // The operator's file: a bad one must say which setting to fix.
    return SigningKeyStore.open({ jwks: readFileSync(path, 'utf8'), ...options }, now).catch((error: unknown) => {
      throw new Error(`SIGNING_KEYS_FILE ${JSON.stringify(path)}: ${error instanceof Error ? error.message : String(error)}`);
    });
  }
  ensureDataDir(config.dataDir);
  return SigningKeyStore.open({ file: join(config.dataDir, 'signing-keys.json'), ...options }, now);
}
