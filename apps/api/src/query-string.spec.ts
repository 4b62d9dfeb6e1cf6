import { parseScalarQuery } from './query-string';

describe('parseScalarQuery', () => {
  it('reads plain parameters as strings, repeated ones as lists', () => {
    expect({ ...parseScalarQuery('page=2&passphrase=a%20b') }).toEqual({ page: '2', passphrase: 'a b' });
    expect({ ...parseScalarQuery('page=1&page=2') }).toEqual({ page: ['1', '2'] });
  });

  it.each([
    ['page[]=1', { page: ['1'] }],
    ['page[a]=1', { page: ['1'] }],
    ['page[a][b]=1', { page: ['1'] }],
    ['page=2&page[]=1', { page: ['2', '1'] }],
    ['passphrase[]=x&passphrase[a]=y', { passphrase: ['x', 'y'] }],
  ])('folds the bracketed keys of %s into a list under the base name', (query, expected) => {
    expect({ ...parseScalarQuery(query) }).toEqual(expected);
  });

  it('leaves keys that only contain brackets alone', () => {
    expect({ ...parseScalarQuery('[]=1&a]=2') }).toEqual({ '[]': '1', 'a]': '2' });
  });

  it('cannot reach the prototype', () => {
    const sut = parseScalarQuery('__proto__[polluted]=1&constructor[prototype][x]=1');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(sut)).toBeNull();
  });
});
