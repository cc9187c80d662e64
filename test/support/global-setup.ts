import type { TestProject } from 'vitest/node';
import { startCluster } from './postgres-cluster.js';
import type { Cluster } from './postgres-cluster.js';
import { createMigratedTemplate } from './databases.js';
import { ensureSystemPackages, systemPackages } from './system-packages.js';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string;
    /** A database of that cluster with every migration applied: copy it, never connect to it. */
    postgresTemplate: string;
  }
}

/** The system packages each lane that has a set-up needs (the unit lane has none). */
export function packagesFor(lane: string): typeof systemPackages {
  if (lane === 'api') return systemPackages.filter((p) => p.name === 'postgresql');
  if (lane === 'system') return systemPackages;
  throw new Error(`test set-up: no global set-up is defined for the "${lane}" lane (see test/lanes.ts)`);
}

interface SharedCluster {
  readonly cluster: Promise<Cluster>;
  users: number;
}

const template = 'migrated_template';

/** Starts the run's cluster with the migrated template database in it. */
async function startClusterWithTemplate(): Promise<Cluster> {
  const cluster = await startCluster();
  try {
    await createMigratedTemplate(cluster.url, template);
  } catch (error) {
    cluster.stop();
    throw error;
  }
  return cluster;
}

// `npm test` runs the api and system lanes in one vitest process: they share one cluster
// (each test file makes its own database) instead of paying for two initdb runs.
const key = Symbol.for('booking-service.test.postgres-cluster');
const shared = globalThis as typeof globalThis & { [key]?: SharedCluster };

/**
 * Runs once per lane that needs it (api, system) before that lane's first test file:
 * installs the system packages the lane needs when they are missing (as root; otherwise
 * stops with the command to run), then starts (or joins) the PostgreSQL cluster for the run
 * and its migrated template database.
 */
export default async function setup(project: TestProject): Promise<() => void> {
  ensureSystemPackages(packagesFor(project.name));
  const entry = (shared[key] ??= { cluster: startClusterWithTemplate(), users: 0 });
  entry.users += 1;
  let cluster: Cluster;
  try {
    cluster = await entry.cluster;
  } catch (error) {
    if (shared[key] === entry) delete shared[key];
    throw error;
  }
  project.provide('postgresUrl', cluster.url);
  project.provide('postgresTemplate', template);
  return () => {
    entry.users -= 1;
    if (entry.users > 0) return;
    if (shared[key] === entry) delete shared[key];
    cluster.stop();
  };
}
