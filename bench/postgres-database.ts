import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** A database the benchmark owns for one run. */
export interface ThrowawayDatabase {
  readonly url: string;
  drop(): Promise<void>;
}

/**
 * Creates an empty database on the server `serverUrl` points at, so a run never mixes its
 * seeded rows with anyone's data and starts from the same state every time.
 */
export async function createThrowawayDatabase(serverUrl: string): Promise<ThrowawayDatabase> {
  const name = `booking_bench_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } catch (error) {
    throw new Error(`cannot create database ${name} on DATABASE_URL's server (the role needs CREATEDB): ${(error as Error).message}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: serverUrl });
      await client.connect();
      try {
        await client.query(`drop database if exists ${name} with (force)`);
      } finally {
        await client.end();
      }
    },
  };
}
