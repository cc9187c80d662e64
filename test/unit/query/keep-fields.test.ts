import { describe, expect, it } from 'vitest';
import { keepFields } from '../../../src/query/keep-fields.js';

describe('keepFields', () => {
  it('keeps only the selected fields of every record, in place', () => {
    const records = [
      { _id: 'a', name: 'one', city: 'Gent' },
      { _id: 'b', name: 'two', city: 'Graz' },
    ];
    keepFields(records, ['_id', 'name']);
    expect(records).toEqual([
      { _id: 'a', name: 'one' },
      { _id: 'b', name: 'two' },
    ]);
  });

  it('leaves records whole without a selection', () => {
    const records = [{ _id: 'a', name: 'one' }];
    keepFields(records, null);
    keepFields(records, undefined);
    expect(records).toEqual([{ _id: 'a', name: 'one' }]);
  });
});
