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
    // The unit and api lanes share one module graph per worker (`isolate: false`): loading
    // the service's modules afresh for every file was most of those lanes' time. So a test
    // file leaves no module state behind it (no `vi.mock`; spies restored, servers closed);
    // `--sequence.shuffle` runs check that no file depends on another's leftovers. The system
    // lane keeps a fresh graph per file: its files start processes and Chromium.
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: [...lanes.unit], isolate: false },
      },
      {
        extends: true,
        test: {
          name: 'api',
          include: [...lanes.api],
          exclude: [...configDefaults.exclude, ...lanes.unit, ...lanes.system],
          globalSetup: ['test/support/global-setup.ts'],
          isolate: false,
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
