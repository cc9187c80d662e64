import type { TestProject } from 'vitest/node';
import { startCluster } from './postgres-cluster.js';
import type { Cluster } from './postgres-cluster.js';
import { ensureSystemPackages, systemPackages } from './system-packages.js';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string;
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

// `npm test` runs the api and system lanes in one vitest process: they share one cluster
// (each test file makes its own database) instead of paying for two initdb runs.
const key = Symbol.for('booking-service.test.postgres-cluster');
const shared = globalThis as typeof globalThis & { [key]?: SharedCluster };

/**
 * Runs once per lane that needs it (api, system) before that lane's first test file:
 * installs the system packages the lane needs when they are missing (as root; otherwise
 * stops with the command to run), then starts (or joins) the PostgreSQL cluster for the run.
 */
export default async function setup(project: TestProject): Promise<() => void> {
  ensureSystemPackages(packagesFor(project.name));
  const entry = (shared[key] ??= { cluster: startCluster(), users: 0 });
  entry.users += 1;
  let cluster: Cluster;
  try {
    cluster = await entry.cluster;
  } catch (error) {
    if (shared[key] === entry) delete shared[key];
    throw error;
  }
  project.provide('postgresUrl', cluster.url);
  return () => {
    entry.users -= 1;
    if (entry.users > 0) return;
    if (shared[key] === entry) delete shared[key];
    cluster.stop();
  };
}
