import { createHash } from 'node:crypto';
import { closeSync, fstatSync, openSync, readSync, writeSync } from 'node:fs';

/**
 * The few lines of POSIX ustar a backup needs: regular files, short names, written and read
 * with positional I/O in chunks (a database of any size never sits in memory). Standard
 * tools read the result (`tar -tvf backup.tar`).
 */

const block = 512;
const chunk = 1 << 20;
/** ustar's size field: 11 octal digits. */
const maxSize = 8 ** 11 - 1;

/** A member as read back: where its bytes are and their SHA-256. */
export interface TarMember {
  readonly name: string;
  readonly size: number;
  readonly offset: number;
}

function octal(value: number, width: number): string {
  return `${value.toString(8).padStart(width - 1, '0')}\0`;
}

function header(name: string, size: number, mtimeSeconds: number): Buffer {
  if (Buffer.byteLength(name) > 99) throw new Error(`archive member name too long: ${name}`);
  if (size > maxSize) throw new Error(`archive member ${name} is larger than 8 GiB`);
  const h = Buffer.alloc(block);
  h.write(name, 0, 'utf8');
  h.write(octal(0o600, 8), 100, 'ascii');
  h.write(octal(0, 8), 108, 'ascii');
  h.write(octal(0, 8), 116, 'ascii');
  h.write(octal(size, 12), 124, 'ascii');
  h.write(octal(mtimeSeconds, 12), 136, 'ascii');
  h.write('        ', 148, 'ascii');
  h.write('0', 156, 'ascii');
  h.write('ustar\0', 257, 'ascii');
  h.write('00', 263, 'ascii');
  let sum = 0;
  for (const byte of h) sum += byte;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
  return h;
}

/** Appends members to an open file descriptor; `finish` writes the end-of-archive blocks. */
export class TarWriter {
  constructor(
    private readonly fd: number,
    private readonly mtimeSeconds: number,
  ) {}

  /** Adds `data` as `name`; returns its SHA-256 (hex). */
  addBuffer(name: string, data: Buffer): string {
    writeSync(this.fd, header(name, data.length, this.mtimeSeconds));
    writeSync(this.fd, data);
    this.pad(data.length);
    return createHash('sha256').update(data).digest('hex');
  }

  /** Copies the file at `path` in as `name`; returns size and SHA-256 (hex). */
  addFile(name: string, path: string): { size: number; sha256: string } {
    const source = openSync(path, 'r');
    try {
      const size = fstatSync(source).size;
      writeSync(this.fd, header(name, size, this.mtimeSeconds));
      const hash = createHash('sha256');
      const buffer = Buffer.alloc(chunk);
      for (let position = 0; position < size;) {
        const read = readSync(source, buffer, 0, Math.min(chunk, size - position), position);
        if (read === 0) throw new Error(`${path} shrank while being archived`);
        hash.update(buffer.subarray(0, read));
        writeSync(this.fd, buffer, 0, read);
        position += read;
      }
      this.pad(size);
      return { size, sha256: hash.digest('hex') };
    } finally {
      closeSync(source);
    }
  }

  finish(): void {
    writeSync(this.fd, Buffer.alloc(block * 2));
  }

  private pad(size: number): void {
    const rest = size % block;
    if (rest !== 0) writeSync(this.fd, Buffer.alloc(block - rest));
  }
}

function field(h: Buffer, start: number, length: number): string {
  const raw = h.subarray(start, start + length).toString('utf8');
  const end = raw.indexOf('\0');
  return (end === -1 ? raw : raw.slice(0, end)).trim();
}

/** The members of the archive open at `fd`; fails on anything but a well-formed ustar. */
export function listTar(fd: number): TarMember[] {
  const total = fstatSync(fd).size;
  const members: TarMember[] = [];
  const h = Buffer.alloc(block);
  for (let position = 0; position + block <= total;) {
    readSync(fd, h, 0, block, position);
    if (h.every((byte) => byte === 0)) return members;
    let sum = 0;
    for (let i = 0; i < block; i += 1) sum += i >= 148 && i < 156 ? 32 : (h[i] ?? 0);
    if (field(h, 257, 6) !== 'ustar' || Number.parseInt(field(h, 148, 8), 8) !== sum) throw new Error('not a backup archive (bad tar header)');
    const size = Number.parseInt(field(h, 124, 12), 8);
    const offset = position + block;
    if (!Number.isSafeInteger(size) || offset + size > total) throw new Error('the backup archive is truncated');
    members.push({ name: field(h, 0, 100), size, offset });
    position = offset + Math.ceil(size / block) * block;
  }
  throw new Error('the backup archive is truncated (no end-of-archive marker)');
}

/** Reads a member whole (small members: the manifest, key files). */
export function readMember(fd: number, member: TarMember): Buffer {
  const data = Buffer.alloc(member.size);
  if (member.size > 0) readSync(fd, data, 0, member.size, member.offset);
  return data;
}

/** Streams a member through `sink` (null: only hash it); returns its SHA-256 (hex). */
export function copyMember(fd: number, member: TarMember, sink: number | null): string {
  const hash = createHash('sha256');
  const buffer = Buffer.alloc(chunk);
  for (let done = 0; done < member.size;) {
    const read = readSync(fd, buffer, 0, Math.min(chunk, member.size - done), member.offset + done);
    if (read === 0) throw new Error('the backup archive is truncated');
    hash.update(buffer.subarray(0, read));
    if (sink !== null) writeSync(sink, buffer, 0, read);
    done += read;
  }
  return hash.digest('hex');
}
