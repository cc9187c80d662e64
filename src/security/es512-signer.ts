/**
 * The raw ES512 signature primitive behind our access tokens: ECDSA P-521 with SHA-512,
 * returned in the JWS form (IEEE P1363, r ‖ s, 66 bytes each), and its always-available
 * implementation, node:crypto (Node's bundled OpenSSL). The faster one, the system's
 * OpenSSL, is chosen or fallen back from in one place: `chooseEs512Signer` in
 * libcrypto-es512-signer.ts. Both run the signature on the libuv pool, never on the event
 * loop. Only signing: every verification goes through `jose`.
 */
import { sign, type KeyObject } from 'node:crypto';

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
