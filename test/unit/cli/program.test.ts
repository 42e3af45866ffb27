import { buildProgram } from '../../../src/cli/program';

/** Commands load lazily: a run of one command builds (and loads) only that command's module. */
test('the program has every command for help; a named command gets only its own', () => {
  const all = buildProgram().commands.map((c) => c.name()).sort();
  expect(all).toEqual(['api', 'backtest', 'cancel', 'check-config', 'console-token', 'download', 'drift', 'orders', 'pause', 'promote', 'reduce-only', 'reload', 'resume', 'rollback', 'run', 'shadow', 'sim-exchange', 'status', 'strategies', 'strategy-resume', 'sweep', 'worker']);
  expect(buildProgram(['node', 'tradebot', 'backtest', '--strategy', 'x']).commands.map((c) => c.name())).toEqual(['backtest']);
  expect(buildProgram(['node', 'tradebot', 'resume']).commands.map((c) => c.name()).sort()).toEqual(['pause', 'reduce-only', 'resume']);
  expect(buildProgram(['node', 'tradebot', 'promote']).commands.map((c) => c.name()).sort()).toEqual(['cancel', 'promote', 'reload', 'rollback', 'shadow', 'strategy-resume']);
  expect(buildProgram(['node', 'tradebot', 'nope']).commands).toHaveLength(all.length);
});
