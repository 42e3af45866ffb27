// typescript-eslint's recommended rules over the sources, tests and benches (`npm run lint:ts`, part
// of `npm test`). Rules of that set turned off here say why.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const nodeCommonJsGlobals = Object.fromEntries(
  ['require', 'module', 'exports', '__dirname', '__filename', 'process', 'Buffer', 'console', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'setImmediate', 'URL']
    .map((name) => [name, 'readonly']),
);

export default tseslint.config(
  // broken.js is a strategy with a syntax error on purpose (the daemon must report it).
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'bench/out/**', 'state/**', 'test/fixtures/**', 'test/integration/app/broken-strategy/broken.js'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      // The CLI loads each command with require() when it runs (start-up time of every command), and
      // optional or heavy modules (pino-pretty, readline) are required where they are first needed.
      '@typescript-eslint/no-require-imports': 'off',
      // `LoadedStrategy<any>` is the "some strategy, whatever its params" type the host holds, and
      // tests read untyped JSON answers; `unknown` there would only move the casts around.
      '@typescript-eslint/no-explicit-any': 'off',
      // Flags the `let x = fallback; try { x = parse() } catch { x = fallback }` idiom the code uses
      // on purpose (the fallback is visible where the variable is declared).
      'no-useless-assignment': 'off',
      // A variable a closure reads before its one assignment (set later in start-up) cannot be const.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // What the code already follows: types come in through `import type` (lazy `typeof import()`
      // stays allowed: the CLI types its require() calls that way), and == only against null.
      '@typescript-eslint/consistent-type-imports': ['error', { disallowTypeAnnotations: false }],
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      // A leading underscore names a value that is deliberately unused (a destructured-away field).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
    },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: nodeCommonJsGlobals },
  },
);
