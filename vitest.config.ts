import { configDefaults, defineConfig } from 'vitest/config';
import { lanes } from './test/lanes.js';

// One project per lane (test/lanes.ts): `vitest run` runs them all, `--project <lane>` one.
export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: more workers than that only adds contention.
    maxWorkers: 2,
    pool: 'forks',
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: [...lanes.unit] },
      },
      {
        extends: true,
        test: {
          name: 'api',
          include: [...lanes.api],
          exclude: [...configDefaults.exclude, ...lanes.unit, ...lanes.system],
          globalSetup: ['test/support/global-setup.ts'],
        },
      },
      {
        extends: true,
        // Real processes (servers, the CLI, npm, Chromium) start slowly on a busy machine: a
        // time-out here is a safety net, not a speed check (those live in `npm run bench`).
        test: { name: 'system', include: [...lanes.system], globalSetup: ['test/support/global-setup.ts'], testTimeout: 120_000 },
      },
    ],
  },
});
