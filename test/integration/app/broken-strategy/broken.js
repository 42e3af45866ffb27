// Test-only: a strategy module with a syntax error; the daemon must report it and run the others.
module.exports = { name: 'broken', onCandle( };
