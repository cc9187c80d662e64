import type { TestProject } from 'vitest/node';
import { startCluster } from './postgres-cluster.js';
import { ensureSystemPackages } from './system-packages.js';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string;
  }
}

/**
 * Runs once before any test file: installs the system packages the suites need when they
 * are missing (as root; otherwise stops with the command to run), then starts one
 * PostgreSQL cluster for the whole run; each test file makes its own database.
 */
export default async function setup(project: TestProject): Promise<() => void> {
  ensureSystemPackages();
  const cluster = await startCluster();
  project.provide('postgresUrl', cluster.url);
  return () => cluster.stop();
}
