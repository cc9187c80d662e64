import { describe, expect, it } from 'vitest';
import { badlyEncodedParameters } from '../../../src/http/query-encoding.js';

describe('badlyEncodedParameters', () => {
  it('accepts well-formed query strings, escapes and all', () => {
    for (const query of ['', 'city=Berlin', 'city=S%C3%A3o+Paulo', 'a=%25&b=%2B%26', 'flag', '=x', 'x=%F0%9F%98%80']) expect(badlyEncodedParameters(query), query).toEqual([]);
  });

  it('names each parameter whose value is not percent-encoded UTF-8', () => {
    expect(badlyEncodedParameters('ok=1&city=%E0%A4%A&name=100%&zone=%ED%A0%80&n=%C3%A3')).toEqual([
      { field: 'city', message: 'invalid percent-encoding' },
      { field: 'name', message: 'invalid percent-encoding' },
      { field: 'zone', message: 'invalid percent-encoding' },
    ]);
  });

  it('says "query" for a parameter whose own name does not decode', () => {
    expect(badlyEncodedParameters('%ZZ=1&S%C3%A3o=%')).toEqual([
      { field: 'query', message: 'invalid percent-encoding' },
      { field: 'São', message: 'invalid percent-encoding' },
    ]);
  });
});
