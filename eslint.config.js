// The linter (`npx eslint`; test/fitness/lint.test.ts runs it in `npm run test:long`): a few rules
// that catch bugs tsc lets through, each with why, over the product's sources and over the tests,
// benchmarks and scripts, where a promise nobody awaits makes a test that cannot fail. Style is left
// to the authors; the shape of the code (lengths, layers, cycles) is held by test/fitness/checker.ts.
import tseslint from 'typescript-eslint';

// The rules that need no type information, for every linted file.
const plainRules = {
  // Unused variables and imports are dead code, or a value that was meant to be used.
  '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true, caughtErrors: 'none' }],
  // `==` converts types before comparing; `== null` (null or undefined) stays allowed.
  eqeqeq: ['error', 'always', { null: 'ignore' }],
  // A case that falls through into the next is almost always a forgotten `break` or `return`.
  'no-fallthrough': 'error',
  // A variable never reassigned, declared with let, tells the reader it changes.
  'prefer-const': 'error',
};

// The rules that read the types, for every TypeScript file.
const typedRules = {
  ...plainRules,
  // A promise nobody awaits or catches loses its rejection: an unhandled rejection ends the process,
  // and in a test an assertion in it runs after the test has ended, or never: the test cannot fail.
  '@typescript-eslint/no-floating-promises': 'error',
  // Awaiting a value that is not a promise is a sign the callee is not what the caller thinks.
  '@typescript-eslint/await-thenable': 'error',
  // A promise in an `if` is always truthy: the condition meant to await it.
  '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
};

const common = {
  plugins: { '@typescript-eslint': tseslint.plugin },
  linterOptions: { reportUnusedDisableDirectives: 'error' },
};

// Each TypeScript file is checked with the types of the nearest tsconfig.json: the product's,
// test/tsconfig.json, bench/tsconfig.json or scripts/tsconfig.json.
const typed = {
  parser: tseslint.parser,
  parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
};

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'bench/results/**', 'test/fitness/fixtures/**', '.test-build-*/**', 'coverage/**'] },
  {
    // The product's sources, as tsconfig.json compiles them.
    files: ['*.ts', '{app,bin,domain,lib,plugins,projections,routes,schemas,services,store}/**/*.ts'],
    languageOptions: typed,
    ...common,
    rules: {
      ...typedRules,
      // Only Error objects carry a stack, and the error renderer tells errors apart by their class.
      '@typescript-eslint/only-throw-error': 'error',
      // `any` switches the type checker off for everything it touches.
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
  {
    // The tests, benchmarks and scripts, with the types of their own tsconfig.json.
    files: ['test/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts'],
    languageOptions: typed,
    ...common,
    rules: {
      ...typedRules,
      // A subtest's promise (`t.test`, `t.skip`) may float: tap queues the subtest, the parent
      // waits for it before it ends, and a failure in it fails the run, even one made after the
      // parent's function returned; it resolves to the results and never rejects. Only the order
      // is left to the author: code after an unawaited subtest runs once the subtest first waits.
      '@typescript-eslint/no-floating-promises': ['error', {
        allowForKnownSafePromises: [{ from: 'package', name: 'PromiseWithSubtest', package: '@tapjs/core' }],
      }],
      // `any` stays allowed here (no-explicit-any off): a test reads a JSON answer as
      // Record<string, any> to reach the nested fields its assertions then check, or hands a
      // function a value of the wrong type on purpose; an `unknown` there would only add casts.
    },
  },
  {
    // The JavaScript beside them (loader hooks, benchmark drivers, the build and test runners): no
    // types to read, so only the rules that need none.
    files: ['{test,bench,scripts}/**/*.{js,mjs}'],
    languageOptions: { parser: tseslint.parser, sourceType: 'module' },
    ...common,
    rules: plainRules,
  },
);
