// The linter (`npx eslint`; test/fitness/lint.test.ts runs it in `npm test`): a few rules that
// catch bugs tsc lets through, each with why. Style is left to the authors; the shape of the code
// (lengths, layers, cycles) is held by test/fitness/checker.ts.
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    // The product's sources, as tsconfig.json compiles them; tests, benchmarks and scripts are not linted.
    files: ['*.ts', '{app,bin,domain,lib,plugins,projections,routes,schemas,services,store}/**/*.ts'],
    ignores: ['dist/**', 'node_modules/**'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // A promise nobody awaits or catches loses its rejection: an unhandled rejection ends the process.
      '@typescript-eslint/no-floating-promises': 'error',
      // Awaiting a value that is not a promise is a sign the callee is not what the caller thinks.
      '@typescript-eslint/await-thenable': 'error',
      // A promise in an `if` is always truthy: the condition meant to await it.
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      // Only Error objects carry a stack, and the error renderer tells errors apart by their class.
      '@typescript-eslint/only-throw-error': 'error',
      // `any` switches the type checker off for everything it touches.
      '@typescript-eslint/no-explicit-any': 'error',
      // Unused variables and imports are dead code, or a value that was meant to be used.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true, caughtErrors: 'none' }],
      // `==` converts types before comparing; `== null` (null or undefined) stays allowed.
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      // A case that falls through into the next is almost always a forgotten `break` or `return`.
      'no-fallthrough': 'error',
      // A variable never reassigned, declared with let, tells the reader it changes.
      'prefer-const': 'error',
    },
  },
);
