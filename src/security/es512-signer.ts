/**
 * The raw ES512 signature primitive behind our access tokens: ECDSA P-521 with SHA-512,
 * returned in the JWS form (IEEE P1363, r ‖ s, 66 bytes each). Two implementations share
 * this interface: the system's OpenSSL loaded privately (libcrypto-es512-signer.ts, about
 * 7× faster here) and node:crypto (Node's bundled OpenSSL), the fallback. Both run the
 * signature on the libuv pool, never on the event loop. Only signing: every verification
 * goes through `jose`.
 */
import { sign, type KeyObject } from 'node:crypto';
import { openLibcryptoEs512Signer, systemLibcrypto } from './libcrypto-es512-signer.js';

/** Bytes of a P-521 signature in the JWS (IEEE P1363) form. */
export const es512SignatureBytes = 132;

export type Es512SignerName = 'libcrypto' | 'node';

export interface Es512Signer {
  /** `libcrypto`: the system OpenSSL; `node`: node:crypto. */
  readonly name: Es512SignerName;
  /** One line for logs and the posture: what signs and why. */
  readonly description: string;
  /** Signs `input` with a P-521 private key; resolves with the P1363 signature. */
  sign(input: Buffer, key: KeyObject): Promise<Buffer>;
}

/** node:crypto on the libuv pool (a callback costs the main thread a few µs). */
export const nodeEs512Signer: Es512Signer = {
  name: 'node',
  description: "node:crypto (Node's bundled OpenSSL)",
  sign(input, key) {
    return new Promise((resolve, reject) => {
      sign('sha512', input, { key, dsaEncoding: 'ieee-p1363' }, (error, signature) => (error ? reject(error) : resolve(signature)));
    });
  },
};

/** `ES512_SIGNER`: `auto` prefers the system libcrypto and falls back; the others insist. */
export type Es512SignerMode = 'auto' | 'libcrypto' | 'node';

export interface Es512SignerChoice {
  readonly signer: Es512Signer;
  /** Why the system libcrypto is not used although `auto` asked for it. */
  readonly fallbackReason?: string;
}

const choices = new Map<string, Promise<Es512SignerChoice>>();

/**
 * The signer for `mode`, chosen once per process (the library is loaded once). `libcrypto`
 * rejects when the system library cannot be used, so a deployment that requires it fails
 * at start instead of silently signing at a seventh of the speed.
 */
export function chooseEs512Signer(mode: Es512SignerMode = 'auto', library: string = systemLibcrypto): Promise<Es512SignerChoice> {
  const id = `${mode}\u0000${library}`;
  let choice = choices.get(id);
  if (!choice) {
    choice = choose(mode, library);
    choices.set(id, choice);
  }
  return choice;
}

async function choose(mode: Es512SignerMode, library: string): Promise<Es512SignerChoice> {
  // Chosen, not fallen back to: no reason to report.
  if (mode === 'node') return { signer: nodeEs512Signer };
  const opened = await openLibcryptoEs512Signer(library);
  if ('signer' in opened) return { signer: opened.signer };
  if (mode === 'libcrypto') throw new Error(`ES512_SIGNER=libcrypto, but the system libcrypto cannot be used: ${opened.reason}`);
  return { signer: nodeEs512Signer, fallbackReason: opened.reason };
}
