// Jest reporter: ends every run with the plain line "N passed, N failed" (CI reads it). A test file
// that could not run (a syntax error, a failing beforeAll outside any test) counts as one failure.
'use strict';

class SummaryReporter {
  onRunComplete(_contexts, results) {
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    process.stdout.write(`${results.numPassedTests} passed, ${failed} failed\n`);
  }
}

module.exports = SummaryReporter;
