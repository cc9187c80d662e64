/** A P-256 key pair made in the browser: the public half for the API, the private half for a download. */
export interface BrowserKeyPair {
  readonly publicPem: string;
  readonly privatePem: string;
}

function pem(label: string, der: ArrayBuffer): string {
  const base64 = btoa(String.fromCharCode(...new Uint8Array(der)));
  return `-----BEGIN ${label}-----\n${base64.replace(/(.{64})/g, '$1\n').replace(/\n$/, '')}\n-----END ${label}-----\n`;
}

/** Generates with WebCrypto; the private key is exportable only so it can be downloaded, and never leaves the page otherwise. */
export async function generateKeyPair(): Promise<BrowserKeyPair> {
  const pair = await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify']);
  const [spki, pkcs8] = await Promise.all([crypto.subtle.exportKey('spki', pair.publicKey), crypto.subtle.exportKey('pkcs8', pair.privateKey)]);
  return { publicPem: pem('PUBLIC KEY', spki), privatePem: pem('PRIVATE KEY', pkcs8) };
}

/** An object URL offering `text` as a file; revoke it when the link goes away. */
export function downloadUrl(text: string): string {
  return URL.createObjectURL(new Blob([text], { type: 'application/x-pem-file' }));
}
