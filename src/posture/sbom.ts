import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** Where `npm run sbom` writes the CycloneDX document, relative to the package root. */
export const sbomRelativePath = join('generated', 'sbom.cdx.json');

/** A loaded SBOM: the document as generated and its media type. */
export interface Sbom {
  /** Bytes as generated (a Buffer, so Fastify leaves the media type exactly as given). */
  readonly body: Buffer;
  readonly contentType: string;
}

/**
 * The CycloneDX SBOM generated from the lockfile at build time (`npm run sbom`, run by
 * `prebuild` and `pretest`). It is only ever read, never produced at runtime: the runtime
 * image has no npm and no dev dependencies, and an SBOM describes what was built.
 */
export class SbomFile {
  readonly #path: string;
  #loaded: Sbom | undefined;

  constructor(root: string) {
    this.#path = join(root, sbomRelativePath);
  }

  /** The SBOM, or `undefined` when this build has none. Read once, then cached. */
  async load(): Promise<Sbom | undefined> {
    if (this.#loaded) return this.#loaded;
    let body: Buffer;
    try {
      body = await readFile(this.#path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    const parsed = JSON.parse(body.toString('utf8')) as { bomFormat?: unknown; specVersion?: unknown };
    if (parsed.bomFormat !== 'CycloneDX' || typeof parsed.specVersion !== 'string') throw new Error(`${sbomRelativePath} is not a CycloneDX document`);
    this.#loaded = { body, contentType: `application/vnd.cyclonedx+json; version=${parsed.specVersion}` };
    return this.#loaded;
  }
}
