import { apiPrefix, tokenPath } from '../core/api-paths.js';
import { settings } from './settings.js';
import type { Settings } from './settings.js';
import type { ReadSetting } from './setting-kinds.js';

type Values = { readonly [K in keyof Settings]: ReturnType<Settings[K]['parse']> };

/** The validated, frozen configuration passed explicitly to everything that needs it. */
export interface Config extends Values {
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
 * file (secrets such as `DATABASE_URL` or `REDIS_URL` with passwords). Returns the values
 * read, by variable.
 */
function fileSecrets(env: NodeJS.ProcessEnv, readFile: (path: string) => string): ReadonlyMap<string, string> {
  const out = new Map<string, string>();
  for (const { env: target } of Object.values(settings)) {
    if (target.endsWith('_FILE')) continue;
    const key = `${target}_FILE`;
    const path = env[key];
    if (path === undefined) continue;
    if (env[target] !== undefined) throw new Error(`set ${target} or ${key}, not both`);
    out.set(target, readFor(key, path, readFile).trim());
  }
  return out;
}

/**
 * Validates the environment once; a bad value fails the boot with a message naming the
 * variable. `readFile` gives access to files: `NAME_FILE` secrets, and the check that every
 * path setting (`TLS_CERT_FILE`…) names a readable file. Without it (tests, scripts) secrets
 * from files are refused and paths are taken as given. Each declared variable is read from
 * `env` by its declaration, and nothing else is.
 */
export function loadConfig(env: NodeJS.ProcessEnv, readFile?: (path: string) => string): Config {
  const fromFiles = fileSecrets(
    env,
    readFile ??
      (() => {
        throw new Error('file secrets are not available here');
      }),
  );
  const read: ReadSetting = (setting) => (fromFiles.has(setting.env) ? fromFiles.get(setting.env) : env[setting.env]);
  const values = {} as Record<string, unknown>;
  for (const [key, entry] of Object.entries(settings)) {
    const value = entry.parse(read(entry), read);
    if (entry.readsFile && typeof value === 'string' && readFile) readFor(entry.env, value, readFile);
    values[key] = value;
  }
  const config = values as unknown as Values;
  return Object.freeze({ ...config, apiBase: `${config.publicUrl}${apiPrefix}`, tokenEndpoint: `${config.publicUrl}${tokenPath}` });
}
