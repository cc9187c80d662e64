import { spawn } from 'node:child_process';
import { freePort, portReachable } from './free-port.js';
import { onPath } from './system-binaries.js';

/** A throwaway redis-server on a free port; a missing binary is a loud failure. */
export interface RedisServer {
  readonly url: string;
  readonly port: number;
  stop(): Promise<void>;
}

/** Starts redis-server on `port` (a free one by default; pass the old one to restart it). */
export async function startRedis(port?: number): Promise<RedisServer> {
  const program = onPath('redis-server');
  if (!program) {
    throw new Error('Redis tests need "redis-server" on the PATH (Debian package redis-server; the test set-up installs it as root). Refusing to skip.');
  }
  port ??= await freePort();
  const child = spawn(program, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  for (let i = 0; i < 100 && !(await portReachable(port)); i++) await new Promise((r) => setTimeout(r, 50));
  if (!(await portReachable(port))) throw new Error('redis-server did not start');
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
