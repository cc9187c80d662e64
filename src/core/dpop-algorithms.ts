/**
 * The algorithms accepted for DPoP proofs (RFC 9449), with the public JWK members each
 * requires: the one list the proof check, the `WWW-Authenticate` challenge, the discovery
 * document, the posture and the OpenAPI document all read.
 */
export const dpopKeyShapes: Readonly<Record<string, { readonly kty: string; readonly crv?: string; readonly members: readonly string[] }>> = Object.freeze({
  ES256: { kty: 'EC', crv: 'P-256', members: ['x', 'y'] },
  ES384: { kty: 'EC', crv: 'P-384', members: ['x', 'y'] },
  ES512: { kty: 'EC', crv: 'P-521', members: ['x', 'y'] },
  RS256: { kty: 'RSA', members: ['n', 'e'] },
  EdDSA: { kty: 'OKP', crv: 'Ed25519', members: ['x'] },
});

/** {@link dpopKeyShapes}' algorithm names, space-separated as `algs` and the docs print them. */
export const dpopAlgorithms = Object.keys(dpopKeyShapes).join(' ');
