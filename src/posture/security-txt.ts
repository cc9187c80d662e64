/** The members of an RFC 9116 security.txt this service publishes. */
export interface SecurityTxt {
  /** `Contact` URIs, most preferred first (at least one). */
  readonly contacts: readonly string[];
  /** `Expires`, ISO 8601. */
  readonly expires: string;
  readonly encryption?: string | undefined;
  readonly policy?: string | undefined;
  /** Where this file is published (`Canonical`). */
  readonly canonical: string;
  readonly preferredLanguages: readonly string[];
}

const year = 365 * 86_400_000;

/**
 * `Expires` when none is configured: one year after start. RFC 9116 §2.5.5 wants the field
 * and recommends less than a year ahead; a process restarted at every deploy keeps it fresh.
 */
export function defaultExpires(startedAt: number): string {
  return new Date(startedAt + year).toISOString();
}

/** Renders the file: one `Field: value` per line, fields in the order of RFC 9116 §2.5. */
export function renderSecurityTxt(txt: SecurityTxt): string {
  if (txt.contacts.length === 0) throw new Error('security.txt needs at least one Contact');
  const lines = [
    '# Security contact of the booking service (RFC 9116).',
    ...txt.contacts.map((contact) => `Contact: ${contact}`),
    `Expires: ${txt.expires}`,
    ...(txt.encryption ? [`Encryption: ${txt.encryption}`] : []),
    ...(txt.policy ? [`Policy: ${txt.policy}`] : []),
    `Preferred-Languages: ${txt.preferredLanguages.join(', ')}`,
    `Canonical: ${txt.canonical}`,
  ];
  // No line may smuggle another field in: settings are URIs, but say so where it matters.
  if (lines.some((line) => /[\r\n]/.test(line))) throw new Error('security.txt field with a line break');
  return `${lines.join('\n')}\n`;
}
