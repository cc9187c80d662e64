/**
 * ECDSA signature encodings: OpenSSL returns the DER `SEQUENCE { INTEGER r, INTEGER s }`
 * (RFC 3279 §2.2.3); JWS wants IEEE P1363, r ‖ s as fixed-width big-endian (RFC 7518
 * §3.4). The parser is strict: anything but one minimal SEQUENCE of two positive INTEGERs
 * that fit `size` bytes each is refused, so a library fault cannot turn into a token.
 */

/** Reads a DER length at `at`; returns [length, offset of the contents]. */
function readLength(der: Uint8Array, at: number): [number, number] {
  const first = der[at];
  if (first === undefined) throw new Error('DER signature: truncated length');
  if (first < 0x80) return [first, at + 1];
  // A P-521 signature is at most 139 bytes: one length byte after 0x81 is enough.
  if (first !== 0x81) throw new Error('DER signature: unsupported length form');
  const length = der[at + 1];
  if (length === undefined || length < 0x80) throw new Error('DER signature: non-minimal length');
  return [length, at + 2];
}

/** Copies the INTEGER at `at` right-aligned into `out` at `outAt`; returns the next offset. */
function readInteger(der: Uint8Array, at: number, size: number, out: Buffer, outAt: number): number {
  if (der[at] !== 0x02) throw new Error('DER signature: expected an INTEGER');
  const [length, start] = readLength(der, at + 1);
  const end = start + length;
  if (length === 0 || end > der.length) throw new Error('DER signature: bad INTEGER length');
  let first = start;
  if (der[first] === 0x00) {
    // A leading zero only marks a positive number whose top bit is set.
    if (length === 1 || ((der[first + 1] as number) & 0x80) === 0) throw new Error('DER signature: non-minimal INTEGER');
    first++;
  } else if (((der[first] as number) & 0x80) !== 0) {
    throw new Error('DER signature: negative INTEGER');
  }
  const digits = end - first;
  if (digits > size) throw new Error('DER signature: INTEGER wider than the curve');
  out.set(der.subarray(first, end), outAt + size - digits);
  return end;
}

/**
 * Converts a DER ECDSA signature to IEEE P1363 with `size` bytes per component (66 for
 * P-521). Short r or s (leading zero bytes dropped by DER) are left-padded with zeros.
 */
export function derToP1363(der: Uint8Array, size: number): Buffer {
  if (der[0] !== 0x30) throw new Error('DER signature: expected a SEQUENCE');
  const [length, start] = readLength(der, 1);
  if (start + length !== der.length) throw new Error('DER signature: length does not match');
  const out = Buffer.alloc(2 * size);
  const afterR = readInteger(der, start, size, out, 0);
  const afterS = readInteger(der, afterR, size, out, size);
  if (afterS !== der.length) throw new Error('DER signature: trailing bytes');
  return out;
}
