import { spawn, spawnSync } from 'node:child_process';
import { createConnection } from 'node:net';
import { freePort } from './free-port.js';

/** A throwaway redis-server on a free port; a missing binary is a loud failure. */
export interface RedisServer {
  readonly url: string;
  stop(): Promise<void>;
}

function reachable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' }, () => {
      socket.end();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

export async function startRedis(): Promise<RedisServer> {
  if (spawnSync('sh', ['-c', 'command -v redis-server']).status !== 0) {
    throw new Error('Redis tests need "redis-server" on the PATH (Debian package redis-server; .ci/run installs it). Refusing to skip.');
  }
  const port = await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  for (let i = 0; i < 100 && !(await reachable(port)); i++) await new Promise((r) => setTimeout(r, 50));
  if (!(await reachable(port))) throw new Error('redis-server did not start');
  return {
    url: `redis://127.0.0.1:${port}`,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
