// Jest runs the TypeScript sources through ts-jest as CommonJS (the project's module format).
// ky and d3-scale (with the d3 packages and internmap it imports) are ESM-only; Node >= 20.19 can
// require() them at run time, but Jest's own module loader cannot, so they are transformed to
// CommonJS for tests only (transformIgnorePatterns).
/** @type {import('jest').Config} */
const tsJest = [
  'ts-jest',
  { tsconfig: { allowJs: true, isolatedModules: true, module: 'commonjs', moduleResolution: 'node10' }, diagnostics: false },
];
const shared = {
  testEnvironment: 'node',
  transform: { '^.+\\.m?[tj]s$': tsJest },
  transformIgnorePatterns: ['/node_modules/(?!(ky|d3-[a-z-]+|internmap)/)'],
  moduleFileExtensions: ['ts', 'js', 'mjs', 'json'],
  // The strategy SDK as strategies import it (package.json exports), mapped to its source under ts-jest.
  moduleNameMapper: { '^tradebot/strategy$': '<rootDir>/src/strategy/strategy.ts' },
};
module.exports = {
  // Three workers on the 2-core CI machine: most integration suites wait on child daemons, simulators,
  // Redis and market-clock sleeps, so a third worker fills the cores they leave idle. Measured on the
  // 193 suites, nothing else running: 585 s with two (a clean clone, load 2.1 at start), 477 s with
  // three (load 1.9 at start); earlier, one worker 728 s against two 393 s on 183 suites.
  maxWorkers: 3,
  // Long suites first on a run without Jest's timing cache (CI's fresh clone): no four-minute tail.
  testSequencer: '<rootDir>/test/helpers/slow-first-sequencer.js',
  globalSetup: '<rootDir>/test/helpers/global-setup.ts',
  globalTeardown: '<rootDir>/test/helpers/global-teardown.ts',
  // The default output, then the plain "N passed, N failed" line CI reads.
  reporters: ['default', '<rootDir>/test/helpers/summary-reporter.js'],
  projects: [
    { ...shared, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.test.ts'] },
    { ...shared, displayName: 'integration', testMatch: ['<rootDir>/test/integration/**/*.test.ts'] },
    { ...shared, displayName: 'crash', testMatch: ['<rootDir>/test/crash/**/*.test.ts'] },
  ],
};
