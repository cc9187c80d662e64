import { describe, expect, it } from 'vitest';
import { findDuplicateKey } from '../../../src/core/duplicate-json-keys.js';
import { CompactJwsError, decodeCompactJws, parseStrictJson } from '../../../src/security/compact-jws.js';
import { b64url } from './jws-helpers.js';

describe('findDuplicateKey', () => {
  it.each([
    ['{"a":1,"b":2}', undefined],
    ['{"a":{"a":1},"b":[{"a":1},{"a":2}]}', undefined],
    ['{"a":"\\"a\\"","b":"{\\"a\\":1,\\"a\\":2}"}', undefined],
    ['[1,"a","a"]', undefined],
    ['{"a":1,"a":2}', 'a'],
    ['{ "a" : 1 , "a" : 2 }', 'a'],
    ['{"alg":"ES256","\\u0061lg":"none"}', 'alg'],
    ['{"x":{"k":1,"k":2}}', 'k'],
    ['{"x":[{"k":1,"k":2}]}', 'k'],
    ['{"a\\\\":1,"a\\\\":2}', 'a\\'],
  ])('%s → %s', (json, duplicate) => {
    expect(findDuplicateKey(json)).toBe(duplicate);
  });

  it('parseStrictJson refuses duplicates and invalid JSON', () => {
    expect(parseStrictJson('{"a":1}')).toEqual({ a: 1 });
    expect(() => parseStrictJson('{"a":1,"a":1}')).toThrow(CompactJwsError);
    expect(() => parseStrictJson('{a:1}')).toThrow('not valid JSON');
  });
});

describe('decodeCompactJws', () => {
  const header = b64url('{"alg":"ES256"}');
  const payload = b64url('{"sub":"x"}');

  it('decodes a well-formed token', () => {
    expect(decodeCompactJws(`${header}.${payload}.AAAA`, 1000)).toEqual({ header: { alg: 'ES256' }, payload: { sub: 'x' } });
  });

  it.each([
    ['too long', `${header}.${payload}.${'A'.repeat(1000)}`, 'longer than'],
    ['an empty signature', `${header}.${payload}.`, 'signature segment is not unpadded base64url'],
    ['invalid UTF-8', `${b64url(Buffer.from([0x7b, 0xff, 0x7d]))}.${payload}.AAAA`, 'not valid UTF-8'],
    ['a string payload', `${header}.${b64url('"x"')}.AAAA`, 'payload is not a JSON object'],
    ['a null header', `${b64url('null')}.${payload}.AAAA`, 'header is not a JSON object'],
  ])('refuses %s', (_name, token, reason) => {
    expect(() => decodeCompactJws(token, 1000)).toThrow(reason);
  });
});
