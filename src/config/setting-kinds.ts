/**
 * The kinds of setting the list in `settings.ts` is made of. A declaration states its
 * variable, default, bounds and description once; its parser is told the variable (for its
 * messages) and the default from that declaration, and reads another setting only through
 * that setting's declaration, never by a variable name of its own.
 */

/** The raw value of another declared setting, as `loadConfig` found it (`NAME_FILE` applied). */
export type ReadSetting = (setting: Setting<unknown>) => string | undefined;

export interface Setting<T> {
  /** The environment variable. */
  readonly env: string;
  readonly description: string;
  /** Shown in docs; `undefined` means "unset". */
  readonly defaultText: string | undefined;
  parse(raw: string | undefined, read: ReadSetting): T;
  /** The value is a path the service reads: `loadConfig` checks it is readable, before anything opens. */
  readonly readsFile?: true;
}

/** What a parser is told of its own declaration: the variable its messages name, and the default. */
export interface Own<D> {
  readonly name: string;
  readonly fallback: D;
}

/** Parses one raw value; a bad one throws an error whose message starts with `own.name`. */
export type Parser<T, D = undefined> = (raw: string | undefined, own: Own<D>, read: ReadSetting) => T;

/**
 * A setting's variable and its meaning. The kinds with a parser of their own (numbers,
 * switches, text, one of a list) are declared positionally: variable, default, bounds,
 * description; a setting with its own parser as one of these objects.
 */
interface Declaration {
  readonly env: string;
  readonly description: string;
}

/** A setting with a default value; the docs show it as `shown` writes it. */
export function defaulted<T, D>(declaration: Declaration & { readonly default: D; readonly parse: Parser<T, D> }): Setting<T> {
  const { env, description, parse } = declaration;
  const own: Own<D> = { name: env, fallback: declaration.default };
  return { env, description, defaultText: shown(declaration.default), parse: (raw, read) => parse(raw, own, read) };
}

/** A setting without a default value ("unset" in the docs, unless `defaultText` says what it falls back to). */
export function setting<T>(declaration: Declaration & { readonly parse: Parser<T>; readonly defaultText?: string }): Setting<T> {
  return { ...defaulted({ ...declaration, default: undefined }), defaultText: declaration.defaultText };
}

/** A default as the docs show it: a list comma-separated, an empty list as "unset". */
function shown(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (Array.isArray(value)) return value.length === 0 ? undefined : value.join(',');
  return String(value);
}

/** A comma-separated list: items trimmed, empty ones dropped (unset is none). */
export function commaList(raw: string | undefined): string[] {
  return (raw ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

/** The value, or `undefined` when unset or empty. */
export function optionalText(raw: string | undefined): string | undefined {
  return raw === undefined || raw === '' ? undefined : raw;
}

function wholeNumber(raw: string, name: string, min: number, max: number): number {
  if (!/^\d+$/.test(raw)) throw new Error(`${name} must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new Error(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

/** A whole number within `range` (both ends included). */
export function integerSetting(env: string, fallback: number, [min, max]: Range, description: string): Setting<number> {
  return defaulted({ env, description, default: fallback, parse: (raw, { name }) => (raw === undefined || raw === '' ? fallback : wholeNumber(raw, name, min, max)) });
}

/** A whole number within `range` (both ends included), or unset. */
export function optionalIntegerSetting(env: string, [min, max]: Range, description: string): Setting<number | undefined> {
  return setting({ env, description, parse: (raw, { name }) => (raw === undefined || raw === '' ? undefined : wholeNumber(raw, name, min, max)) });
}

type Range = readonly [min: number, max: number];

/** `true`/`1` or `false`/`0`. */
export function booleanSetting(env: string, fallback: boolean, description: string): Setting<boolean> {
  return defaulted({
    env,
    description,
    default: fallback,
    parse: (raw, { name }) => {
      if (raw === undefined || raw === '') return fallback;
      if (raw === 'true' || raw === '1') return true;
      if (raw === 'false' || raw === '0') return false;
      // Cut short: a long value may be a secret set on the wrong variable.
      throw new Error(`${name} must be true or false, got "${raw.slice(0, 20)}"`);
    },
  });
}

/** Free text, taken as given; unset or empty gives `fallback`. */
export function textSetting(env: string, fallback: string, description: string): Setting<string>;
/** Free text, taken as given, or unset. */
export function textSetting(env: string, description: string): Setting<string | undefined>;
export function textSetting(env: string, ...rest: [string, string] | [string]): Setting<string | undefined> {
  const [fallback, description] = rest.length === 2 ? rest : [undefined, rest[0]];
  return defaulted({ env, description, default: fallback, parse: (raw) => optionalText(raw) ?? fallback });
}

/** One of `values`. */
export function enumSetting<V extends string>(env: string, fallback: NoInfer<V>, values: readonly V[], description: string): Setting<V> {
  const isValue = (text: string): text is V => (values as readonly string[]).includes(text);
  return defaulted({
    env,
    description,
    default: fallback,
    parse: (raw, { name }): V => {
      const value = optionalText(raw) ?? fallback;
      if (!isValue(value)) throw new Error(`${name} must be ${joinOr(values)}, got "${value}"`);
      return value;
    },
  });
}

function joinOr(items: readonly string[]): string {
  return items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} or ${items.at(-1) ?? ''}`;
}

/** An absolute http(s) URL, or unset. */
export function httpUrlSetting(env: string, description: string): Setting<string | undefined> {
  return setting({
    env,
    description,
    parse: (raw, { name }) => {
      const value = optionalText(raw);
      if (value !== undefined) httpUrl(name, value);
      return value;
    },
  });
}

/** `value` as an absolute http(s) URL; anything else fails with a message naming the setting. */
export function httpUrl(name: string, value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`${name} "${value}" is not an absolute URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`${name} must be http(s)`);
  return url;
}

/** An optional path to a file the service reads (`loadConfig` checks that it can). */
export function fileSetting(env: string, description: string): Setting<string | undefined> {
  return { ...textSetting(env, description), readsFile: true };
}

/**
 * Two paths that only work together (a certificate and its key): setting one without the
 * other is refused, naming both.
 */
export function filePair(first: Declaration, second: Declaration): readonly [Setting<string | undefined>, Setting<string | undefined>] {
  const needs = (declaration: Declaration, partner: () => Setting<unknown>): Setting<string | undefined> => ({
    ...setting({
      ...declaration,
      parse: (raw, { name }, read) => {
        const value = optionalText(raw);
        const other = partner();
        if (value !== undefined && !optionalText(read(other))) throw new Error(`${name} is set without ${other.env}: set both, or neither`);
        return value;
      },
    }),
    readsFile: true,
  });
  const pair: [Setting<string | undefined>, Setting<string | undefined>] = [needs(first, () => pair[1]), needs(second, () => pair[0])];
  return pair;
}
