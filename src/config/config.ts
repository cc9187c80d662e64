import { apiPrefix, tokenPath } from '../core/api-paths.js';
import { settings } from './settings.js';
import type { Settings } from './settings.js';

type Values = { readonly [K in keyof Settings]: ReturnType<Settings[K]['parse']> };

/** The validated, frozen configuration passed explicitly to everything that needs it. */
export interface Config extends Omit<Values, 'publicUrl'> {
  /** Origin without trailing slash. */
  readonly publicUrl: string;
  /** `{publicUrl}/v1`: issuer, audience and API base. */
  readonly apiBase: string;
  /** `{publicUrl}/v1/auth/token`: required `aud` of client assertions. */
  readonly tokenEndpoint: string;
}

const readErrors: Readonly<Record<string, string>> = { ENOENT: 'no such file', EACCES: 'permission denied', EISDIR: 'is a directory', ENOTDIR: 'a parent is not a directory' };

/** Reads `path` for the setting `name`; a failure names both (never the content). */
function readFor(name: string, path: string, readFile: (path: string) => string): string {
  try {
    return readFile(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? '';
    throw new Error(`${name}: cannot read ${JSON.stringify(path)}: ${readErrors[code] ?? (code || (error as Error).message)}`);
  }
}

/**
 * Reads `*_FILE` indirection for our own settings: `NAME_FILE=/path` supplies NAME from a
 * file (secrets such as `DATABASE_URL` or `REDIS_URL` with passwords).
 */
function withFileSecrets(env: NodeJS.ProcessEnv, readFile: (path: string) => string): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...env };
  for (const { env: target } of Object.values(settings)) {
    const key = `${target}_FILE`;
    const value = env[key];
    if (value === undefined || target.endsWith('_FILE')) continue;
    if (env[target] !== undefined) throw new Error(`set ${target} or ${key}, not both`);
    out[target] = readFor(key, value, readFile).trim();
  }
  return out;
}

/**
 * Validates the environment once; a bad value fails the boot with a message naming the
 * variable. `readFile` gives access to files: `NAME_FILE` secrets, and the check that every
 * path setting (`TLS_CERT_FILE`…) names a readable file. Without it (tests, scripts) secrets
 * from files are refused and paths are taken as given.
 */
export function loadConfig(env: NodeJS.ProcessEnv, readFile?: (path: string) => string): Config {
  const source = withFileSecrets(
    env,
    readFile ??
      (() => {
        throw new Error('file secrets are not available here');
      }),
  );
  const values = {} as Record<string, unknown>;
  for (const [key, entry] of Object.entries(settings)) {
    const value = entry.parse(source[entry.env], source);
    if (entry.readsFile && typeof value === 'string' && readFile) readFor(entry.env, value, readFile);
    values[key] = value;
  }
  const port = values.port as number;
  const publicUrl = ((values.publicUrl as string | undefined) ?? `http://localhost:${port}`).replace(/\/+$/, '');
  let parsed: URL;
  try {
    parsed = new URL(publicUrl);
  } catch {
    throw new Error(`PUBLIC_URL "${publicUrl}" is not an absolute URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('PUBLIC_URL must be http(s)');
  if (parsed.search || parsed.hash) throw new Error('PUBLIC_URL must not carry a query or fragment');
  const apiBase = `${publicUrl}${apiPrefix}`;
  return Object.freeze({
    ...(values as unknown as Values),
    publicUrl,
    apiBase,
    tokenEndpoint: `${publicUrl}${tokenPath}`,
  });
}
