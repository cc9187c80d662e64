/**
 * ES512 signatures from the system's OpenSSL (`libcrypto.so.3`), called through koffi, and
 * the choice between it and node:crypto (`ES512_SIGNER`): everything about the faster
 * signer lives here, its checks and its fallback included, so the rest of the service only
 * sees an {@link Es512Signer}. A machine without the library (or without koffi's binary)
 * signs with node:crypto under `auto`, with the reason.
 *
 * Why: Node 20's bundled OpenSSL signs P-521 with generic code; Debian's build enables
 * OpenSSL's 64-bit `ecp_nistp521.c`, a constant-time implementation several times faster
 * (docs/benchmarks-history.md "Token issuance"). Node exports its own OpenSSL symbols, so
 * the library is opened with RTLD_DEEPBIND: its internal calls bind to itself, not to
 * Node's copy (without it, the same calls run at Node's speed). Opening checks that the
 * P-521 group really uses the nistp521 method, and signs and verifies one message, before
 * the signer is offered; otherwise the caller falls back to node:crypto.
 *
 * Per key, the PKCS#8 DER is imported once into an EVP_PKEY. Per token, the SHA-512 of the
 * signing input is computed here (a microsecond) and `EVP_PKEY_sign` runs on the libuv
 * pool (koffi's async calls); each call owns an EVP_PKEY_CTX from a per-key free list, so
 * no context is ever shared between threads. The DER result becomes P1363 for JWS.
 */
import { createHash, createPublicKey, generateKeyPairSync, verify, type KeyObject } from 'node:crypto';
import { createRequire } from 'node:module';
import type koffiModule from 'koffi';
import { derToP1363 } from './der-to-p1363.js';
import { nodeEs512Signer, type Es512Signer } from './es512-signer.js';

type Koffi = typeof koffiModule;
type Pointer = bigint;
/** A koffi function: called synchronously, or with `.async(..., callback)` on the pool. */
interface Native<Args extends unknown[], R> {
  (...args: Args): R;
  async(...args: [...Args, (error: unknown, result: R) => void]): void;
}

/** The system OpenSSL 3 library, found by the dynamic loader's usual search. */
const systemLibcrypto = 'libcrypto.so.3';
const NID_secp521r1 = 716;
const OPENSSL_INIT_LOAD_CONFIG = 0x40;
const OPENSSL_INIT_NO_ATEXIT = 0x80000;
const EVP_PKEY_EC = 408;
/** Largest DER ECDSA P-521 signature: SEQUENCE header 3 + 2 × (2 + 67). */
const maxDerBytes = 141;
/**
 * Signatures queued on the pool at once; more wait here. koffi keeps this many call
 * blocks resident (its maximum), so no call allocates memory for itself.
 */
const maxInFlight = 32;

interface Libcrypto {
  readonly version: string;
  readonly d2iPrivateKeyBio: (bio: Pointer, out: null) => Pointer | null;
  readonly bioNew: (method: Pointer) => Pointer | null;
  readonly bioMem: () => Pointer;
  readonly bioWrite: (bio: Pointer, data: Buffer, length: number) => number;
  readonly bioFree: (bio: Pointer) => number;
  readonly keyBits: (key: Pointer) => number;
  readonly keyBaseId: (key: Pointer) => number;
  readonly keyFree: (key: Pointer) => void;
  readonly ctxNew: (key: Pointer, engine: null) => Pointer | null;
  readonly ctxFree: (ctx: Pointer) => void;
  readonly signInit: (ctx: Pointer) => number;
  readonly setSignatureMd: (ctx: Pointer, md: Pointer) => number;
  readonly sha512: () => Pointer;
  readonly sign: Native<[ctx: Pointer, sig: Buffer, length: [number], digest: Buffer, digestLength: number], number>;
  readonly clearErrors: () => void;
}

/** Binds the few OpenSSL 3 functions used; throws when the library or a symbol is missing. */
function bind(koffi: Koffi, libraryName: string): Libcrypto {
  try {
    // Resident call blocks for every signature in flight (set before the first load).
    koffi.config({ ...koffi.config(), resident_async_pools: maxInFlight });
  } catch {
    // Another part of the process loaded a library first; koffi's defaults still work.
  }
  const lib = koffi.load(libraryName, { deep: true });
  const fn = (prototype: string) => lib.func(prototype) as never;
  const versionNum = lib.func('unsigned long OpenSSL_version_num(void)') as () => number;
  if (versionNum() < 0x30000000) throw new Error(`${libraryName} is older than OpenSSL 3.0`);
  // First call, so it decides: no atexit clean-up, which could free the library's state
  // under a pool thread still signing while the process exits; the config file as usual.
  const init = lib.func('int OPENSSL_init_crypto(uint64_t options, void *settings)') as (options: number, settings: null) => number;
  if (init(OPENSSL_INIT_NO_ATEXIT | OPENSSL_INIT_LOAD_CONFIG, null) !== 1) throw new Error(`${libraryName} failed to initialise`);
  const versionText = lib.func('const char *OpenSSL_version(int type)') as (type: number) => string;
  // Deprecated in 3.0 but exported: the only way to ask which EC implementation is in use.
  const groupByName = lib.func('void *EC_GROUP_new_by_curve_name(int nid)') as (nid: number) => Pointer | null;
  const groupMethod = lib.func('void *EC_GROUP_method_of(void *group)') as (group: Pointer) => Pointer;
  const groupFree = lib.func('void EC_GROUP_free(void *group)') as (group: Pointer) => void;
  const nistp521 = lib.func('void *EC_GFp_nistp521_method(void)') as () => Pointer;
  const group = groupByName(NID_secp521r1);
  if (group === null) throw new Error(`${libraryName} does not know P-521`);
  const constantTime = groupMethod(group) === nistp521();
  groupFree(group);
  // Debian enables enable-ec_nistp_64_gcc_128; a build without it uses generic code.
  if (!constantTime) throw new Error(`${libraryName} does not use the constant-time ecp_nistp521 implementation for P-521`);
  return {
    version: versionText(0),
    d2iPrivateKeyBio: fn('void *d2i_PrivateKey_bio(void *bio, void *out)'),
    bioNew: fn('void *BIO_new(void *method)'),
    bioMem: fn('void *BIO_s_mem(void)'),
    bioWrite: fn('int BIO_write(void *bio, const uint8_t *data, int length)'),
    bioFree: fn('int BIO_free(void *bio)'),
    keyBits: fn('int EVP_PKEY_get_bits(void *key)'),
    keyBaseId: fn('int EVP_PKEY_get_base_id(void *key)'),
    keyFree: fn('void EVP_PKEY_free(void *key)'),
    ctxNew: fn('void *EVP_PKEY_CTX_new(void *key, void *engine)'),
    ctxFree: fn('void EVP_PKEY_CTX_free(void *ctx)'),
    signInit: fn('int EVP_PKEY_sign_init(void *ctx)'),
    setSignatureMd: fn('int EVP_PKEY_CTX_set_signature_md(void *ctx, void *md)'),
    sha512: fn('void *EVP_sha512(void)'),
    sign: fn('int EVP_PKEY_sign(void *ctx, _Out_ uint8_t *sig, _Inout_ size_t *length, const uint8_t *digest, size_t digestLength)'),
    clearErrors: fn('void ERR_clear_error(void)'),
  };
}

/** Native state of one key; freed when its {@link NativeKey} is collected. */
interface NativeState {
  readonly key: Pointer;
  readonly idle: Pointer[];
}

class NativeKey {
  constructor(readonly state: NativeState) {}
}

class LibcryptoEs512Signer implements Es512Signer {
  readonly name = 'libcrypto' as const;
  readonly description: string;
  readonly #lib: Libcrypto;
  readonly #sha512: Pointer;
  // Imported once per node:crypto key object; a rotated-out key and its contexts are
  // freed after both the key object and every signature in flight are gone.
  readonly #keys = new WeakMap<KeyObject, NativeKey>();
  readonly #finalizer: FinalizationRegistry<NativeState>;
  #inFlight = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(lib: Libcrypto) {
    this.#lib = lib;
    this.#sha512 = lib.sha512();
    this.description = `system libcrypto (${lib.version}, constant-time ecp_nistp521)`;
    this.#finalizer = new FinalizationRegistry((state) => {
      for (const ctx of state.idle) lib.ctxFree(ctx);
      lib.keyFree(state.key);
    });
  }

  async sign(input: Buffer, key: KeyObject): Promise<Buffer> {
    const native = this.#native(key);
    const digest = createHash('sha512').update(input).digest();
    if (this.#inFlight >= maxInFlight) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    this.#inFlight++;
    const der = Buffer.alloc(maxDerBytes);
    const length: [number] = [maxDerBytes];
    let ctx: Pointer | undefined;
    try {
      const context = (ctx = native.state.idle.pop() ?? this.#context(native.state.key));
      const ok = await new Promise<number>((resolve, reject) => {
        this.#lib.sign.async(context, der, length, digest, digest.length, (error, result) => (error ? reject(error as Error) : resolve(result)));
      });
      if (ok !== 1) throw new Error('EVP_PKEY_sign failed');
    } catch (error) {
      // A context whose operation failed is not trusted again.
      if (ctx !== undefined) this.#lib.ctxFree(ctx);
      throw error;
    } finally {
      this.#inFlight--;
      this.#waiting.shift()?.();
    }
    native.state.idle.push(ctx as Pointer);
    return derToP1363(der.subarray(0, length[0]), 66);
  }

  #native(key: KeyObject): NativeKey {
    let native = this.#keys.get(key);
    if (native) return native;
    const lib = this.#lib;
    const der = key.export({ format: 'der', type: 'pkcs8' });
    const bio = lib.bioNew(lib.bioMem());
    if (bio === null) throw new Error('BIO_new failed');
    let pkey: Pointer | null;
    try {
      // BIO_write copies: the key bytes need not outlive this call.
      if (lib.bioWrite(bio, der, der.length) !== der.length) throw new Error('BIO_write failed');
      pkey = lib.d2iPrivateKeyBio(bio, null);
    } finally {
      lib.bioFree(bio);
      der.fill(0);
    }
    if (pkey === null) {
      lib.clearErrors();
      throw new Error('libcrypto could not import the signing key');
    }
    if (lib.keyBaseId(pkey) !== EVP_PKEY_EC || lib.keyBits(pkey) !== 521) {
      lib.keyFree(pkey);
      throw new TypeError('ES512 needs a P-521 private key');
    }
    native = new NativeKey({ key: pkey, idle: [] });
    this.#finalizer.register(native, native.state);
    this.#keys.set(key, native);
    return native;
  }

  #context(key: Pointer): Pointer {
    const lib = this.#lib;
    const ctx = lib.ctxNew(key, null);
    if (ctx === null) throw new Error('EVP_PKEY_CTX_new failed');
    if (lib.signInit(ctx) !== 1 || lib.setSignatureMd(ctx, this.#sha512) <= 0) {
      lib.ctxFree(ctx);
      lib.clearErrors();
      throw new Error('EVP_PKEY_sign_init failed');
    }
    return ctx;
  }
}

/** A fresh key's signature must verify with node:crypto before the signer is offered. */
async function selfTest(signer: Es512Signer): Promise<void> {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-521' });
  const input = Buffer.from('es512 self-test');
  const signature = await signer.sign(input, privateKey);
  if (!verify('sha512', input, { key: createPublicKey(privateKey), dsaEncoding: 'ieee-p1363' }, signature)) {
    throw new Error('self-test signature does not verify');
  }
}

type LibcryptoOpenResult = { readonly signer: Es512Signer } | { readonly reason: string };

const opened = new Map<string, Promise<LibcryptoOpenResult>>();

/**
 * Loads `libraryName` once per process and checks it (see the module comment). Resolves
 * with the signer, or with the reason it cannot be used; never rejects.
 */
function openLibcryptoEs512Signer(libraryName: string): Promise<LibcryptoOpenResult> {
  let result = opened.get(libraryName);
  if (result) return result;
  result = (async (): Promise<LibcryptoOpenResult> => {
    let lib: Libcrypto;
    try {
      // Required lazily: a platform without a koffi binary falls back instead of failing to boot.
      const koffi = createRequire(import.meta.url)('koffi') as Koffi;
      lib = bind(koffi, libraryName);
    } catch (error) {
      return { reason: `cannot load ${libraryName}: ${error instanceof Error ? error.message : String(error)}` };
    }
    const signer = new LibcryptoEs512Signer(lib);
    try {
      await selfTest(signer);
    } catch (error) {
      return { reason: `${libraryName} failed its self-test: ${error instanceof Error ? error.message : String(error)}` };
    }
    return { signer };
  })();
  opened.set(libraryName, result);
  return result;
}

/** `ES512_SIGNER`: `auto` prefers the system libcrypto and falls back; the others insist. */
export type Es512SignerMode = 'auto' | 'libcrypto' | 'node';

export interface Es512SignerChoice {
  readonly signer: Es512Signer;
  /** Why the system libcrypto is not used although `auto` asked for it (the boot logs it as a warning). */
  readonly fallbackReason?: string;
}

const choices = new Map<string, Promise<Es512SignerChoice>>();

/**
 * The signer for `mode`, chosen once per process (the library is loaded once). `auto`
 * takes the system libcrypto when it loads and passes its checks and self-test, else
 * node:crypto with the reason; `libcrypto` rejects instead, so a deployment that requires
 * it fails at start rather than silently signing at a seventh of the speed. `library`
 * names another file to load (tests: one that is missing).
 */
export function chooseEs512Signer(mode: Es512SignerMode = 'auto', library: string = systemLibcrypto): Promise<Es512SignerChoice> {
  const id = `${mode}\u0000${library}`;
  let choice = choices.get(id);
  if (!choice) {
    choice = choose(mode, library);
    choices.set(id, choice);
  }
  return choice;
}

async function choose(mode: Es512SignerMode, library: string): Promise<Es512SignerChoice> {
  // Chosen, not fallen back to: no reason to report.
  if (mode === 'node') return { signer: nodeEs512Signer };
  const opened = await openLibcryptoEs512Signer(library);
  if ('signer' in opened) return { signer: opened.signer };
  if (mode === 'libcrypto') throw new Error(`ES512_SIGNER=libcrypto, but the system libcrypto cannot be used: ${opened.reason}`);
  return { signer: nodeEs512Signer, fallbackReason: opened.reason };
}
