import { compactError, compactErrorFields } from '../../../src/log/compact-error';

test('an error in one line: type, message, code, context and its first stack frame', () => {
  const stack = 'ConfigError: bad\n    at start (/app/dist/src/app/build-app.js:149:19)\n    at main (/app/dist/src/main.js:1:1)';
  expect(compactError({ type: 'ConfigError', message: 'bad', stack, code: 'TB_ERR_CONFIG', context: { path: 'x' } }))
    .toBe('ConfigError: bad [TB_ERR_CONFIG] {"path":"x"} at start (/app/dist/src/app/build-app.js:149:19)');
  expect(compactError({ message: 'no stack' })).toBe('Error: no stack');
  expect(compactError('text')).toBe('text');
});

test('err becomes error (pino-pretty prints err below the line); other fields untouched', () => {
  expect(compactErrorFields({ a: 1 })).toEqual({ a: 1 });
  expect(compactErrorFields({ a: 1, err: { type: 'Error', message: 'x' } })).toEqual({ a: 1, error: 'Error: x' });
  expect(compactErrorFields({ error: 'already text' })).toEqual({ error: 'already text' });
  expect(compactErrorFields({ err: { message: 'x' }, error: { message: 'y' } })).toEqual({ error: 'Error: y', 'error2': 'Error: x' });
});
