/**
 * Which lane each test file runs in. vitest.config.ts makes one project per lane, and
 * test/unit/test-setup/lanes.test.ts checks every file against its lane's rules, so a test
 * that starts needing PostgreSQL or a real process cannot stay in a faster lane unnoticed.
 *
 * - unit: pure code. No global set-up (no PostgreSQL, no apt), no services, no app harness.
 *   A short local command every machine has (node, openssl, tar, sh) is allowed.
 * - api: the service in-process (test/support/harness.ts and friends) on SQLite and on the
 *   run's PostgreSQL cluster. No real processes beyond that cluster.
 * - system: real processes: the server as a child process, the CLI, nginx, redis-server,
 *   PgBouncer, Chromium, npm. Needs every system package.
 *
 * A new file lands in `unit` under test/unit, otherwise in `api`; list it under `system`
 * when it spawns processes (the lanes test says so when it does).
 */
export const lanes = {
  unit: ['test/unit/**/*.test.ts', 'test/cli/tar-file.test.ts', 'test/client/verify-webhook.test.ts'],
  system: [
    'test/api/admin/console-calendars.test.ts',
    'test/api/admin/console-flow.test.ts',
    'test/api/admin/console-orders.test.ts',
    'test/api/admin/console-page.test.ts',
    'test/api/admin/console-products-users.test.ts',
    'test/api/edge/rate-limit.test.ts',
    'test/api/edge/unauthenticated-limit.test.ts',
    'test/api/observability/status-page.test.ts',
    'test/api/openapi/prism-proxy.test.ts',
    'test/api/ops/deployment-pgbouncer.test.ts',
    'test/api/ops/deployment.test.ts',
    'test/api/ops/log-exit.test.ts',
    'test/api/ops/production-install.test.ts',
    'test/api/ops/shutdown-under-load.test.ts',
    'test/api/ops/shutdown.test.ts',
    'test/api/ops/startup-settings.test.ts',
    'test/api/ops/tracing.test.ts',
    'test/api/webhooks/crash-recovery.test.ts',
    'test/api/webhooks/fairness.test.ts',
    'test/cli/actions.test.ts',
    'test/cli/backup-restore.test.ts',
    'test/cli/cli.test.ts',
    'test/cli/client-helpers.test.ts',
    'test/cli/exit-status.test.ts',
    'test/cli/move-to-postgres.test.ts',
    'test/client/example.test.ts',
    'test/client/package.test.ts',
    'test/client/quick-start.test.ts',
  ],
  /** Everything else; vitest.config.ts excludes the two lists above. */
  api: ['test/**/*.test.ts'],
} as const;

export type Lane = keyof typeof lanes;
