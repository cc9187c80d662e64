/**
 * The service's ES512 (P-521) access-token signing keys, with rotation and overlap.
 * Keys live in a private JWKS: a file the service owns (created 0600, replaced atomically)
 * or a JWKS supplied by the operator (read-only). Each key may carry a non-standard
 * `published_at` member (epoch s); keys without it count as published long ago.
 */
import { createPrivateKey, randomUUID, type KeyObject } from 'node:crypto';
import { link, open, readFile, rename, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { makeDirectory } from '../lib/data-dir.js';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose';
import type { Es512Signer } from './es512-signer.js';
import { chooseEs512Signer } from './libcrypto-es512-signer.js';

export type SigningKeyStoreOptions = ({ readonly file: string; readonly jwks?: undefined } | { readonly jwks: string; readonly file?: undefined }) & {
  /**
   * How long a new key is only published before it signs; default 0. Set it to at least
   * the JWKS cache lifetime so every verifier's cached JWKS already holds a key before the
   * first token signed with it appears.
   */
  readonly publishDelaySeconds?: number;
  /** How long a key stays published after it stopped signing; default 1800 (2 × 900 s tokens). */
  readonly retentionSeconds?: number;
  /** What computes the signatures; default: the system libcrypto when usable, else node:crypto. */
  readonly signer?: Es512Signer;
};

interface SigningKey {
  readonly kid: string;
  readonly privateKey: CryptoKey;
  /** The same private key as a node:crypto key object, handed to the signer (see sign-es512.ts). */
  readonly signingKey: KeyObject;
  readonly publicKey: CryptoKey;
  readonly privateJwk: JWK;
  readonly publishedAt: number;
}

/** A public signing key as published at `/.well-known/jwks.json`. */
export interface PublishedJwk {
  readonly kty: 'EC';
  readonly crv: 'P-521';
  readonly x: string;
  readonly y: string;
  readonly kid: string;
  readonly alg: 'ES512';
  readonly use: 'sig';
}

/** Holds the signing keys; see the module comment. */
export class SigningKeyStore {
  #keys: readonly SigningKey[];
  readonly #file: string | undefined;
  readonly #publishDelay: number;
  readonly #retention: number;
  #rotation: Promise<unknown> = Promise.resolve();
  /** Signs access tokens with the current key (see es512-signer.ts). */
  readonly signer: Es512Signer;

  private constructor(keys: readonly SigningKey[], options: SigningKeyStoreOptions & { readonly signer: Es512Signer }) {
    this.signer = options.signer;
    this.#keys = keys;
    this.#file = options.file;
    this.#publishDelay = options.publishDelaySeconds ?? 0;
    this.#retention = options.retentionSeconds ?? 1800;
  }

  /** Loads the keys; a missing `file` is created with one new key. */
  static async open(given: SigningKeyStoreOptions, now: number): Promise<SigningKeyStore> {
    const options = { ...given, signer: given.signer ?? (await chooseEs512Signer()).signer };
    if (options.file === undefined) return new SigningKeyStore(await parseJwks(options.jwks), options);
    let text: string;
    try {
      text = await readFile(options.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      const store = new SigningKeyStore([await generateKey(now)], options);
      // link() refuses to replace an existing file, so two instances starting at once
      // cannot overwrite each other's new key: the loser loads the winner's file.
      if (await store.#persist(true)) return store;
      text = await readFile(options.file, 'utf8');
    }
    return new SigningKeyStore(await parseJwks(text), options);
  }

  /**
   * The signer: the newest key published at least `publishDelaySeconds` ago, because a
   * token must never reach a verifier whose cached JWKS lacks its key. Before any key is
   * that old (a brand-new store), the oldest key.
   */
  current(now: number): { readonly kid: string; readonly privateKey: CryptoKey; readonly signingKey: KeyObject } {
    const key = this.#keys[this.#signerIndexOf(this.#keys, now)] as SigningKey;
    return { kid: key.kid, privateKey: key.privateKey, signingKey: key.signingKey };
  }

  /** Adds a key (published now, signing after the delay) and drops long-retired ones. */
  rotate(now: number): Promise<string> {
    // Serialised: two overlapping rotations would each rename their own view into place,
    // and the later rename could drop the other's key from the file.
    const result = this.#rotation.then(() => this.#rotate(now));
    this.#rotation = result.catch(() => undefined);
    return result;
  }

  async #rotate(now: number): Promise<string> {
    if (this.#file === undefined) throw new Error('signing keys supplied as a JWKS are read-only; rotate them at the source');
    const added = await generateKey(now);
    const keys = [...this.#keys, added];
    const signer = this.#signerIndexOf(keys, now);
    this.#keys = keys.filter((key, index) => {
      const next = keys[index + 1];
      // A key stopped signing when its successor started; keep it for verification after.
      return index >= signer || next === undefined || next.publishedAt + this.#publishDelay + this.#retention > now;
    });
    await this.#persist(false);
    return added.kid;
  }

  /**
   * Re-reads the key file so a rotation made by another process (the CLI, another
   * instance) is published and, after the delay, used here too. True when keys changed.
   */
  async reload(): Promise<boolean> {
    if (this.#file === undefined) return false;
    const keys = await parseJwks(await readFile(this.#file, 'utf8'));
    const unchanged = keys.length === this.#keys.length && keys.every((key, index) => key.kid === this.#keys[index]?.kid);
    if (!unchanged) this.#keys = keys;
    return !unchanged;
  }

  /** The public JWKS: public members plus `kid`, `alg` and `use` only. */
  publicJwks(): { readonly keys: readonly PublishedJwk[] } {
    return {
      keys: this.#keys.map(({ kid, privateJwk }) => ({
        kty: 'EC',
        crv: 'P-521',
        x: privateJwk.x as string,
        y: privateJwk.y as string,
        kid,
        alg: 'ES512',
        use: 'sig',
      })),
    };
  }

  /** The public key for `kid`, if the store holds it. */
  verificationKey(kid: string): CryptoKey | undefined {
    return this.#keys.find((key) => key.kid === kid)?.publicKey;
  }

  #signerIndexOf(keys: readonly SigningKey[], now: number): number {
    for (let index = keys.length - 1; index >= 0; index--) {
      if ((keys[index] as SigningKey).publishedAt + this.#publishDelay <= now) return index;
    }
    return 0;
  }

  /** Writes via a 0600 temp file; returns false when `exclusive` and the file exists. */
  async #persist(exclusive: boolean): Promise<boolean> {
    const file = this.#file as string;
    const body = { keys: this.#keys.map((key) => ({ ...key.privateJwk, published_at: key.publishedAt })) };
    makeDirectory(dirname(file), 0o700);
    const temp = `${file}.${randomUUID()}.tmp`;
    const handle = await open(temp, 'wx', 0o600);
    try {
      await handle.writeFile(`${JSON.stringify(body, null, 2)}\n`);
      await handle.sync();
    } finally {
      await handle.close();
    }
    if (!exclusive) {
      await rename(temp, file);
      return true;
    }
    try {
      await link(temp, file);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw error;
    } finally {
      await unlink(temp);
    }
  }
}

async function generateKey(now: number): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair('ES512', { extractable: true });
  const jwk = await exportJWK(privateKey);
  const kid = await calculateJwkThumbprint(jwk, 'sha256');
  const privateJwk: JWK = { kty: 'EC', crv: 'P-521', x: jwk.x, y: jwk.y, d: jwk.d, kid, alg: 'ES512', use: 'sig' };
  return { kid, privateKey, publicKey, signingKey: signingKeyOf(privateJwk), privateJwk, publishedAt: now };
}

async function parseJwks(text: string): Promise<SigningKey[]> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error('signing keys: not valid JSON');
  }
  const list = (parsed as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(list) || list.length === 0) throw new Error('signing keys: expected a JWKS {"keys": [...]} with at least one key');
  const keys = await Promise.all(list.map((entry: unknown, index) => importKey(entry, index)));
  if (new Set(keys.map((key) => key.kid)).size !== keys.length) throw new Error('signing keys: duplicate kid');
  // Stable sort: keys without published_at keep their order, the last one being the newest.
  return keys.sort((a, b) => a.publishedAt - b.publishedAt);
}

async function importKey(entry: unknown, index: number): Promise<SigningKey> {
  const jwk = (entry ?? {}) as Record<string, unknown>;
  const where = `signing keys: key ${index}`;
  if (jwk.kty !== 'EC' || jwk.crv !== 'P-521') throw new Error(`${where} is not an EC P-521 key`);
  if (typeof jwk.d !== 'string' || typeof jwk.x !== 'string' || typeof jwk.y !== 'string') throw new Error(`${where} is not a private key`);
  if ((jwk.alg ?? 'ES512') !== 'ES512' || (jwk.use ?? 'sig') !== 'sig') throw new Error(`${where} must have alg ES512 and use sig`);
  const publishedAt = jwk.published_at ?? 0;
  if (typeof publishedAt !== 'number' || !Number.isFinite(publishedAt)) throw new Error(`${where} has an invalid published_at`);
  const publicJwk = { kty: 'EC', crv: 'P-521', x: jwk.x, y: jwk.y };
  const kid = jwk.kid ?? (await calculateJwkThumbprint(publicJwk, 'sha256'));
  if (typeof kid !== 'string' || !/^[\x21-\x7e]{1,200}$/.test(kid)) throw new Error(`${where} has an invalid kid`);
  const privateJwk: JWK = { ...publicJwk, d: jwk.d, kid, alg: 'ES512', use: 'sig' };
  try {
    // WebCrypto checks that d matches (x, y), so a pasted-together key fails here.
    const privateKey = (await importJWK(privateJwk, 'ES512')) as CryptoKey;
    const publicKey = (await importJWK(publicJwk, 'ES512')) as CryptoKey;
    return { kid, privateKey, publicKey, signingKey: signingKeyOf(privateJwk), privateJwk, publishedAt };
  } catch (cause) {
    throw new Error(`${where} is not a valid P-521 key`, { cause });
  }
}

/** The private JWK as a node:crypto key object (imported once per key, never per token). */
function signingKeyOf(jwk: JWK): KeyObject {
  const { kty, crv, x, y, d } = jwk;
  return createPrivateKey({ key: { kty, crv, x, y, d } as Record<string, string>, format: 'jwk' });
}
