import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['.tmp/**', 'dist/**', 'data/**', 'node_modules/**', 'coverage/**', 'bench/results/**', 'packages/*/dist/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      // Type-aware rules: each file is checked against the tsconfig.json nearest to it
      // (the root one, admin/ and packages/client/ have their own).
      parserOptions: { projectService: { allowDefaultProject: ['eslint.config.js'] }, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // A promise nobody awaits loses its rejection: the error reaches no handler, no
      // response and (on Node 20) crashes the process as an unhandled rejection.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      'no-console': ['error', { allow: ['error'] }],
    },
  },
  {
    files: ['cli/**', 'bench/**', 'test/**', 'scripts/**', 'examples/**'],
    rules: { 'no-console': 'off' },
  },
  {
    // Plain-Node scripts (scripts/*.mjs) are type-checked by tsc (checkJs), which knows
    // Node's globals; typescript-eslint turns no-undef off for TypeScript for the same reason.
    files: ['**/*.mjs'],
    rules: { 'no-undef': 'off' },
  },
  {
    // CommonJS TypeScript (src/start.cts) can only import with `import x = require(...)`.
    files: ['**/*.cts'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
