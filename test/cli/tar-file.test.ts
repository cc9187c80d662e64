import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TarWriter, copyMember, listTar, readMember } from '../../cli/tar-file.js';

describe('backup archive (ustar)', () => {
  let dir: string;
  let archive: string;
  const big = Buffer.alloc(1_500_000 + 17, 1).map((_, i) => i % 251);

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'booking-tar-'));
    writeFileSync(join(dir, 'big.bin'), big);
    archive = join(dir, 'a.tar');
    const fd = openSync(archive, 'w');
    const tar = new TarWriter(fd, 1_700_000_000);
    expect(tar.addFile('big.bin', join(dir, 'big.bin'))).toEqual({ size: big.length, sha256: createHash('sha256').update(big).digest('hex') });
    tar.addBuffer('empty', Buffer.alloc(0));
    tar.addBuffer('manifest.json', Buffer.from('{"a":1}'));
    tar.finish();
    closeSync(fd);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads back what it wrote, and the system tar reads it too', () => {
    const fd = openSync(archive, 'r');
    try {
      const members = listTar(fd);
      const member = (name: string) => {
        const found = members.find((m) => m.name === name);
        if (!found) throw new Error(`no member ${name}`);
        return found;
      };
      expect(members.map((m) => [m.name, m.size])).toEqual([
        ['big.bin', big.length],
        ['empty', 0],
        ['manifest.json', 7],
      ]);
      expect(copyMember(fd, member('big.bin'), null)).toBe(createHash('sha256').update(big).digest('hex'));
      expect(readMember(fd, member('manifest.json')).toString()).toBe('{"a":1}');
    } finally {
      closeSync(fd);
    }
    expect(execFileSync('tar', ['-tf', archive], { encoding: 'utf8' }).split('\n').filter(Boolean)).toEqual(['big.bin', 'empty', 'manifest.json']);
    execFileSync('tar', ['-xf', archive, '-C', dir, 'big.bin']);
    expect(readFileSync(join(dir, 'big.bin')).equals(big)).toBe(true);
  });

  it('refuses a truncated archive and one that is not tar', () => {
    const cut = join(dir, 'cut.tar');
    writeFileSync(cut, readFileSync(archive));
    truncateSync(cut, 600_000);
    const junk = join(dir, 'junk.tar');
    writeFileSync(junk, Buffer.alloc(1024, 65));
    for (const [file, message] of [
      [cut, /truncated/],
      [junk, /not a backup archive/],
    ] as const) {
      const fd = openSync(file, 'r');
      try {
        expect(() => listTar(fd)).toThrow(message);
      } finally {
        closeSync(fd);
      }
    }
  });
});
