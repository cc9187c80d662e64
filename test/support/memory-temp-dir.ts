import { mkdtempSync, statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A new temp directory in memory (`/dev/shm`) when that has `needsBytes` free, else in the
 * temp dir. For the tests' bulk scratch data (the PostgreSQL cluster, a fresh clone's
 * `npm ci`), none of which must outlive the run: on disk, writing it back and removing its
 * tens of thousands of files at the end kept the run waiting on a slow disk.
 */
export function memoryTempDir(prefix: string, needsBytes: number): string {
  return mkdtempSync(join(memoryParent(needsBytes), prefix));
}

function memoryParent(needsBytes: number): string {
  try {
    const { bavail, bsize } = statfsSync('/dev/shm');
    if (bavail * bsize >= needsBytes) return '/dev/shm';
  } catch {
    // No /dev/shm on this system.
  }
  return tmpdir();
}
