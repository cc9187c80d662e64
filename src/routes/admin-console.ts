import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { ApiError } from '../http/errors.js';

/**
 * The console's Content-Security-Policy: scripts and styles only from the service's own
 * files (no inline code, no `eval`), API calls to the same origin, nothing framed.
 */
export const adminConsoleCsp = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const contentTypes: Readonly<Record<string, string>> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};

interface Bundle {
  readonly index: Buffer;
  readonly assets: ReadonlyMap<string, Buffer>;
}

/** The built console (`vite build` → dist/admin), read once: index.html and the hashed assets. */
function readBundle(dir: string): Bundle | undefined {
  const index = join(dir, 'index.html');
  if (!existsSync(index)) return undefined;
  const assetsDir = join(dir, 'assets');
  const assets = new Map<string, Buffer>();
  if (existsSync(assetsDir)) for (const name of readdirSync(assetsDir)) if (contentTypes[extname(name)]) assets.set(name, readFileSync(join(assetsDir, name)));
  return { index: readFileSync(index), assets };
}

function page(reply: FastifyReply): FastifyReply {
  return reply.header('content-security-policy', adminConsoleCsp).header('x-content-type-options', 'nosniff');
}

/**
 * `/admin`: the administration console, served by the service itself from its build
 * output. Public routes: the page holds no data; every API call it makes carries the
 * signed-in administrator's token and passes the security pipeline like any other.
 */
export function adminConsoleRoutes(dir: string) {
  const bundle = readBundle(dir);
  return async function register(app: FastifyInstance): Promise<void> {
    app.get('/admin', { config: { public: true } }, async (_request, reply) => {
      if (!bundle) throw new ApiError('service_unavailable', 'The administration console is not built; run `npm run build`');
      return page(reply).header('content-type', 'text/html; charset=utf-8').header('cache-control', 'no-cache').send(bundle.index);
    });
    app.get<{ Params: { file: string } }>('/admin/assets/:file', { config: { public: true } }, async (request, reply) => {
      const asset = bundle?.assets.get(request.params.file);
      if (!asset) throw new ApiError('not_found', 'No such console asset');
      // Content-hashed names: a changed file is a new URL, so browsers may keep these for good.
      return page(reply)
        .header('content-type', contentTypes[extname(request.params.file)] ?? 'application/octet-stream')
        .header('cache-control', 'public, max-age=31536000, immutable')
        .send(asset);
    });
  };
}
