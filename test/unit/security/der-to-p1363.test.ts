import { generateKeyPairSync, randomBytes, sign, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { derToP1363 } from '../../../src/security/der-to-p1363.js';

/** DER INTEGER of the unsigned big-endian `value` (minimal, with a 0x00 when the top bit is set). */
function derInteger(value: Buffer): Buffer {
  let start = 0;
  while (start < value.length - 1 && value[start] === 0) start++;
  let body = value.subarray(start);
  if (((body[0] as number) & 0x80) !== 0) body = Buffer.concat([Buffer.from([0]), body]);
  return Buffer.concat([Buffer.from([0x02, body.length]), body]);
}

function derSequence(...parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts);
  const length = body.length < 0x80 ? Buffer.from([body.length]) : Buffer.from([0x81, body.length]);
  return Buffer.concat([Buffer.from([0x30]), length, body]);
}

function component(bytes: number, top: number): Buffer {
  const value = randomBytes(bytes);
  value[0] = top;
  return value;
}

describe('derToP1363', () => {
  it('turns full-width P-521 components (top byte 0x01) into r ‖ s of 66 bytes each', () => {
    const r = component(66, 0x01);
    const s = component(66, 0x01);
    expect(derToP1363(derSequence(derInteger(r), derInteger(s)), 66)).toEqual(Buffer.concat([r, s]));
  });

  it('left-pads short r and s with zeros (DER drops leading zero bytes)', () => {
    const r = Buffer.concat([Buffer.alloc(3), component(63, 0x42)]);
    const s = Buffer.concat([Buffer.alloc(65), Buffer.from([0x07])]);
    const der = derSequence(derInteger(r), derInteger(s));
    expect(der.subarray(0, 4)).toEqual(Buffer.from([0x30, 68, 0x02, 63])); // short sequence, short r
    const out = derToP1363(der, 66);
    expect(out).toHaveLength(132);
    expect(out).toEqual(Buffer.concat([r, s]));
  });

  it('drops the 0x00 that marks a component with its top bit set, in short and long sequence forms', () => {
    const r = component(32, 0x80);
    const s = component(32, 0xff);
    const der = derSequence(derInteger(r), derInteger(s));
    expect(der[1]).toBe(70); // short-form sequence length
    expect(derToP1363(der, 32)).toEqual(Buffer.concat([r, s]));
  });

  it('matches node:crypto: a DER signature converted verifies as ieee-p1363, over many signatures', () => {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-521' });
    const data = Buffer.from('signing input');
    for (let i = 0; i < 50; i++) {
      const der = sign('sha512', data, { key: privateKey, dsaEncoding: 'der' });
      const p1363 = derToP1363(der, 66);
      expect(verify('sha512', data, { key: publicKey, dsaEncoding: 'ieee-p1363' }, p1363)).toBe(true);
    }
  });

  it('refuses malformed DER instead of producing a wrong signature', () => {
    const r = derInteger(component(66, 0x01));
    const s = derInteger(component(66, 0x01));
    const good = derSequence(r, s);
    const cases: [string, Buffer, RegExp][] = [
      ['not a SEQUENCE', Buffer.concat([Buffer.from([0x31]), good.subarray(1)]), /expected a SEQUENCE/],
      ['trailing byte after the SEQUENCE', Buffer.concat([good, Buffer.from([0])]), /length does not match/],
      ['truncated', good.subarray(0, good.length - 1), /length does not match/],
      ['third INTEGER inside', derSequence(r, s, Buffer.from([0x02, 0x01, 0x01])), /trailing bytes/],
      ['a component that is not an INTEGER', derSequence(Buffer.from([0x04, 0x01, 0x01]), s), /expected an INTEGER/],
      ['a non-minimal leading zero', derSequence(Buffer.from([0x02, 0x02, 0x00, 0x01]), s), /non-minimal INTEGER/],
      ['a negative component', derSequence(Buffer.from([0x02, 0x01, 0x80]), s), /negative INTEGER/],
      ['a zero-length INTEGER', derSequence(Buffer.from([0x02, 0x00]), s), /bad INTEGER length/],
      ['a component wider than the curve', derSequence(derInteger(component(67, 0x01)), s), /wider than the curve/],
      ['a long-form length for a short value', Buffer.from([0x30, 0x81, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01]), /non-minimal length/],
      ['a two-byte length form', Buffer.from([0x30, 0x82, 0x00, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01]), /unsupported length form/],
      ['empty input', Buffer.alloc(0), /expected a SEQUENCE/],
    ];
    for (const [name, der, message] of cases) expect(() => derToP1363(der, 66), name).toThrow(message);
  });
});
