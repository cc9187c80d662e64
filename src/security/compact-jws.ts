/**
 * Strict structural decoding of a compact JWS, done before any key lookup or crypto.
 * jose parses leniently (it tolerates duplicate JSON members, where the last one wins);
 * an attacker can exploit that when another component reads the first one, so we refuse
 * anything ambiguous up front.
 */

import { findDuplicateKey } from '../core/duplicate-json-keys.js';

/** A structural defect of a compact JWS; `reason` is precise and private. */
export class CompactJwsError extends Error {
  readonly reason: string;

  constructor(reason: string) {
    super(reason);
    this.name = 'CompactJwsError';
    this.reason = reason;
  }
}

/** The decoded, not yet verified, parts of a compact JWS. */
export interface DecodedCompactJws {
  readonly header: Readonly<Record<string, unknown>>;
  readonly payload: Readonly<Record<string, unknown>>;
}

const segment = /^[A-Za-z0-9_-]+$/;

/**
 * Decodes a compact JWS whose header and payload are JSON objects, refusing: a wrong
 * segment count, padding or non-base64url characters, non-canonical base64url (trailing
 * bits set), non-JSON or non-object parts, and duplicate member names at any depth.
 */
export function decodeCompactJws(token: string, maxLength: number): DecodedCompactJws {
  if (token.length > maxLength) throw new CompactJwsError(`token longer than ${maxLength} characters`);
  const parts = token.split('.');
  if (parts.length !== 3) throw new CompactJwsError(`expected 3 segments, got ${parts.length}`);
  const [header, payload, signature] = parts as [string, string, string];
  const decoded = { header: decodeObject(header, 'header'), payload: decodeObject(payload, 'payload') };
  checkSegment(signature, 'signature');
  return decoded;
}

function checkSegment(text: string, name: string): Buffer {
  if (!segment.test(text)) throw new CompactJwsError(`${name} segment is not unpadded base64url`);
  const bytes = Buffer.from(text, 'base64url');
  // Re-encoding catches the malleable forms (length ≡ 1 mod 4, non-zero trailing bits).
  if (bytes.toString('base64url') !== text) throw new CompactJwsError(`${name} segment is not canonical base64url`);
  return bytes;
}

function decodeObject(text: string, name: string): Record<string, unknown> {
  const bytes = checkSegment(text, name);
  let json: string;
  try {
    json = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new CompactJwsError(`${name} is not valid UTF-8`);
  }
  const value = parseStrictJson(json, name);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new CompactJwsError(`${name} is not a JSON object`);
  }
  return value as Record<string, unknown>;
}

/**
 * Parses JSON, refusing duplicate member names in any object (RFC 7515 §5.2 step 4 and
 * RFC 8259 §4 say "SHOULD be unique"; we make it MUST).
 */
export function parseStrictJson(json: string, name = 'JSON'): unknown {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw new CompactJwsError(`${name} is not valid JSON`);
  }
  const duplicate = findDuplicateKey(json);
  if (duplicate !== undefined) throw new CompactJwsError(`${name} has duplicate member "${duplicate.slice(0, 50)}"`);
  return value;
}
