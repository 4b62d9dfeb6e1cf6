/** Unit tests: *.spec.ts beside the code. */
const swc = ['@swc/jest', { jsc: { parser: { syntax: 'typescript', decorators: true }, transform: { legacyDecorator: true, decoratorMetadata: true }, target: 'es2022' } }];

module.exports = {
  rootDir: '.',
  roots: ['<rootDir>/libs', '<rootDir>/apps'],
  testRegex: '\\.spec\\.ts$',
  moduleFileExtensions: ['ts', 'js', 'json'],
  transform: { '^.+\\.ts$': swc },
  testEnvironment: 'node',
  moduleNameMapper: { '^@app/([a-z-]+)$': '<rootDir>/libs/$1/src' },
};
