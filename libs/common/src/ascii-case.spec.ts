import { asciiLowerCase } from './ascii-case';

describe('asciiLowerCase', () => {
  it('lower-cases A-Z alone, leaving every other character as it is', () => {
    expect(asciiLowerCase('Kate.O-Neil@Example.COM')).toBe('kate.o-neil@example.com');
    // The Kelvin sign, which toLowerCase would make an ASCII k; and letters whose case is not ASCII's.
    expect(asciiLowerCase('\u212Aate@Example.com')).toBe('\u212Aate@example.com');
    expect(asciiLowerCase('ÉMILE@EXAMPLE.COM')).toBe('Émile@example.com');
    expect(asciiLowerCase('İ')).toBe('İ');
  });
});
