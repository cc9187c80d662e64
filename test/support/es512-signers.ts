import { statSync } from 'node:fs';
import { join } from 'node:path';
import { nodeEs512Signer, type Es512Signer } from '../../src/security/es512-signer.js';
import { chooseEs512Signer } from '../../src/security/libcrypto-es512-signer.js';

/** What `ES512_SIGNER=auto` chose on this machine (the service's default). */
export const autoEs512Choice = await chooseEs512Signer('auto');

/**
 * The ES512 signers token tests run with here: node:crypto everywhere, plus the system
 * libcrypto where `auto` takes it. On a machine without Debian's `libcrypto.so.3` the
 * list is node:crypto alone, and every test that loops over it still runs.
 */
export const es512Signers: readonly Es512Signer[] = autoEs512Choice.signer.name === 'libcrypto' ? [autoEs512Choice.signer, nodeEs512Signer] : [nodeEs512Signer];

/** Where Linux distributions install `libcrypto.so.3` (Debian's multiarch folders included). */
function libraryDirectories(): string[] {
  const triplet = `${process.arch === 'arm64' ? 'aarch64' : 'x86_64'}-linux-gnu`;
  return ['/lib', '/usr/lib', '/lib64', '/usr/lib64', '/usr/local/lib', `/lib/${triplet}`, `/usr/lib/${triplet}`];
}

/**
 * Whether a (non-empty) `libcrypto.so.3` is installed where the loader looks, judged without
 * loading it: the signer module must be the first to open the library (it binds it with
 * RTLD_DEEPBIND, which an earlier plain load would defeat).
 */
export function systemLibcryptoPresent(): boolean {
  return libraryDirectories().some((dir) => {
    try {
      return statSync(join(dir, 'libcrypto.so.3')).size > 0;
    } catch {
      return false;
    }
  });
}
