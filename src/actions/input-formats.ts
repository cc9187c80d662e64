import { isCurrency } from '../lib/money.js';
import { isRangeBound } from '../core/range-bound.js';
import { isCapability } from './capabilities.js';
import { isTimeZone } from '../lib/time-zone.js';
import { isValidCidr } from '../lib/ip-allowlist.js';
import { normaliseTimestamp } from '../core/timestamps.js';

/** A string format the input schemas name in `format`: its check and the message of a refusal. */
export interface InputFormat {
  readonly check: (value: string) => boolean;
  readonly message: string;
}

// The URL parser drops tab, CR and LF, trims other controls and percent-encodes spaces, so a
// URL holding them would pass and be stored as sent: what is shown, logged and exported would
// not be what is called. Invisible format characters (bidi overrides, zero-width spaces) and
// line or paragraph separators would make the stored URL read as another one.
const hiddenOrControlCharacter = /[\p{Cc}\p{Cf}\p{Z}]/u;

function isHttpUrl(value: string): boolean {
  if (hiddenOrControlCharacter.test(value)) return false;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}

/**
 * Every `format` of an input schema, checked by the service's own checkers (not Ajv's
 * stock formats): what is stored must load where it is used later — a CIDR in the
 * allowlist, a capability in a token, a time zone in availability.
 */
export const inputFormats: Readonly<Record<string, InputFormat>> = {
  email: { check: (v) => /^[^\s@]{1,64}@[^\s@]+\.[^\s@]+$/.test(v), message: 'must be an e-mail address' },
  uri: { check: isHttpUrl, message: 'must be an absolute http(s) URL without spaces, invisible or control characters' },
  date: { check: (v) => /^\d{4}-\d{2}-\d{2}$/.test(v) && !Number.isNaN(Date.parse(v)), message: 'must be a date (YYYY-MM-DD)' },
  'date-time': { check: (v) => normaliseTimestamp(v) !== undefined, message: 'must be an ISO 8601 timestamp (2026-01-31T12:00:00Z)' },
  currency: { check: isCurrency, message: 'must be an ISO 4217 currency code with minor units (EUR, JPY, KWD)' },
  phone: { check: (v) => /^\+[1-9]\d{6,14}$/.test(v), message: 'must be an E.164 phone number (+4930123456)' },
  cidr: { check: isValidCidr, message: 'must be an IPv4 or IPv6 address or CIDR (no zone id, no leading zeros)' },
  capability: { check: (v) => isCapability(v), message: 'is not a known capability' },
  pem: { check: (v) => v.includes('-----BEGIN'), message: 'must be a PEM document' },
  'iana-time-zone': { check: isTimeZone, message: 'must be an IANA time zone name (Europe/Berlin, UTC)' },
  'date-or-date-time': { check: isRangeBound, message: 'must be a date (YYYY-MM-DD) or an ISO 8601 timestamp with a zone (2030-03-31T10:00:00Z)' },
};
