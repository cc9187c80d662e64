import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SigningKeyStore } from '../../../src/security/signing-keys.js';

describe('signing keys rotated by another process', () => {
  const dir = mkdtempSync(join(tmpdir(), 'keys-'));
  const file = join(dir, 'signing-keys.json');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('are published on reload and sign only after the publish delay', async () => {
    const now = 1_800_000_000;
    const server = await SigningKeyStore.open({ file, publishDelaySeconds: 360 }, now);
    const first = server.current(now).kid;
    expect(await server.reload()).toBe(false);

    const operator = await SigningKeyStore.open({ file, publishDelaySeconds: 360 }, now + 10);
    const added = await operator.rotate(now + 10);

    expect(await server.reload()).toBe(true);
    expect(server.publicJwks().keys.map((k) => k.kid)).toEqual([first, added]);
    expect(server.current(now + 10 + 359).kid).toBe(first);
    expect(server.current(now + 10 + 360).kid).toBe(added);
    expect(server.verificationKey(first)).toBeDefined();
  });
});
