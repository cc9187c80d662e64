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
    out[target] = readFile(value).trim();
  }
  return out;
}

/**
 * Validates the environment once; a bad value fails the boot with a message naming the
 * variable. `overrides` lets tests and the CLI set values without touching `process.env`.
 */
export function loadConfig(
  env: NodeJS.ProcessEnv,
  readFile: (path: string) => string = () => {
    throw new Error('file secrets are not available here');
  },
): Config {
  const source = withFileSecrets(env, readFile);
  const values = {} as Record<string, unknown>;
  for (const [key, entry] of Object.entries(settings)) {
    values[key] = entry.parse(source[entry.env], source);
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
