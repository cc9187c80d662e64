import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Stateless server nonces: `<slot>.<HMAC(slot)>` where slot = floor(now / window). A nonce
 * is accepted in its own slot and the next, so it lives between one and two windows and no
 * instance needs to remember what it issued.
 */
export class DpopNonces {
  readonly #secret: Buffer;
  readonly #windowSeconds: number;

  constructor(options: { readonly secret: string | Uint8Array; readonly windowSeconds?: number }) {
    this.#secret = Buffer.from(options.secret);
    if (this.#secret.length < 32) throw new Error('DPoP nonce secret must be at least 32 bytes');
    this.#windowSeconds = options.windowSeconds ?? 300;
  }

  /** A nonce for the current slot. */
  issue(now: number): string {
    const slot = Math.floor(now / this.#windowSeconds);
    return `${slot.toString(36)}.${this.#mac(slot).toString('base64url')}`;
  }

  /** Whether `nonce` was issued by a holder of the secret in the current or previous slot. */
  isValid(nonce: string, now: number): boolean {
    const match = /^([0-9a-z]{1,11})\.([A-Za-z0-9_-]{43})$/.exec(nonce);
    if (!match?.[1] || !match[2]) return false;
    const slot = Number.parseInt(match[1], 36);
    const current = Math.floor(now / this.#windowSeconds);
    if (slot !== current && slot !== current - 1) return false;
    return timingSafeEqual(Buffer.from(match[2], 'base64url'), this.#mac(slot));
  }

  #mac(slot: number): Buffer {
    return createHmac('sha256', this.#secret).update(`dpop-nonce:${slot}`).digest();
  }
}
