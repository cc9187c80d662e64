import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../../src/core/etag.js';

/** The plain recursive definition: the model the stack-based version must match. */
function model(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(model).join(',')}]`;
  if (value && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    return `{${Object.keys(record)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${model(record[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

describe('canonicalJson (idempotency fingerprints)', () => {
  it('equals the recursive definition on any JSON value, and parses back to the same value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = canonicalJson(value);
        expect(text).toBe(model(value));
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value)));
      }),
      { numRuns: 500 },
    );
  });

  it('is the same for the same members in any order', () => {
    expect(canonicalJson({ b: [1, { d: null, c: 'x' }], a: true })).toBe(canonicalJson({ a: true, b: [1, { c: 'x', d: null }] }));
    expect(canonicalJson({ b: [1, { d: null, c: 'x' }], a: true })).toBe('{"a":true,"b":[1,{"c":"x","d":null}]}');
  });

  it('serialises a body nested far deeper than the call stack would allow (it is fingerprinted before any schema check)', () => {
    const depth = 200_000;
    let nested: unknown = 'bottom';
    for (let i = 0; i < depth; i += 1) nested = i % 2 === 0 ? [nested] : { k: nested };
    expect(() => model(nested)).toThrow(RangeError);
    const text = canonicalJson(nested);
    expect(text.startsWith('{"k":[{"k":[')).toBe(true);
    expect(text.length).toBe((depth / 2) * ('{"k":'.length + '}'.length + '[]'.length) + '"bottom"'.length);
  });
});
