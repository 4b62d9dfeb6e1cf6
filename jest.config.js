/** Unit tests: *.spec.ts beside the code. Type errors are the type-check step's job, not jest's. */
module.exports = {
  rootDir: '.',
  roots: ['<rootDir>/libs', '<rootDir>/apps'],
  testRegex: '\\.spec\\.ts$',
  moduleFileExtensions: ['ts', 'js', 'json'],
  transform: { '^.+\\.ts$': ['ts-jest', { isolatedModules: true, tsconfig: '<rootDir>/tsconfig.json' }] },
  testEnvironment: 'node',
  moduleNameMapper: { '^@app/([a-z0-9-]+)$': '<rootDir>/libs/$1/src' },
};
