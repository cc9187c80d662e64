import { describe, expect, it } from 'vitest';
import { charsets, contentCodings } from '../../../src/http/body-encoding.js';

describe('contentCodings', () => {
  it.each([
    [undefined, []],
    ['', []],
    ['identity', []],
    [' Identity ', []],
    ['gzip', ['gzip']],
    ['GZIP', ['gzip']],
    ['identity, br', ['br']],
    ['gzip,deflate', ['gzip', 'deflate']],
    [['gzip', 'identity'], ['gzip']],
  ] as const)('%j → %j', (header, expected) => {
    expect(contentCodings(header)).toEqual(expected);
  });
});

describe('charsets', () => {
  it.each([
    [undefined, []],
    ['application/json', []],
    ['application/json; charset=UTF-8', ['utf-8']],
    ['application/json;charset="utf-8"', ['utf-8']],
    ['application/json; Charset=latin1; foo=bar', ['latin1']],
    ['application/json; charset', ['']],
    ['application/json; charset=utf-8; charset=latin1', ['utf-8', 'latin1']],
  ] as const)('%j → %j', (contentType, expected) => {
    expect(charsets(contentType)).toEqual(expected);
  });
});
