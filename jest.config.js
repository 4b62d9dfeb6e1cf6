/**
 * openid-client (6) and its dependencies jose and oauth4webapi are ES modules only. The built
 * app, CommonJS, loads them with Node's require() of ES modules (Node 20.19+, package.json's
 * engines); jest's own module system cannot, so ts-jest compiles those three packages to
 * CommonJS for the tests (and only those: node_modules stays untransformed otherwise).
 */
const ESM_PACKAGES = ['openid-client', 'oauth4webapi', 'jose'];

/** Unit tests: *.spec.ts beside the code. Type errors are the type-check step's job, not jest's. */
module.exports = {
  rootDir: '.',
  roots: ['<rootDir>/libs', '<rootDir>/apps'],
  testRegex: '\\.spec\\.ts$',
  moduleFileExtensions: ['ts', 'js', 'json'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { isolatedModules: true, tsconfig: '<rootDir>/tsconfig.json' }],
    [`/node_modules/(${ESM_PACKAGES.join('|')})/.+\\.js$`]: ['ts-jest', { isolatedModules: true, tsconfig: { allowJs: true, module: 'commonjs', target: 'ES2022' } }],
  },
  transformIgnorePatterns: [`/node_modules/(?!(${ESM_PACKAGES.join('|')})/)`],
  testEnvironment: 'node',
  moduleNameMapper: { '^@app/([a-z0-9-]+)$': '<rootDir>/libs/$1/src' },
};
