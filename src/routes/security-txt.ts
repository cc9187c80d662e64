import type { FastifyInstance } from 'fastify';
import type { Config } from '../config/config.js';
import { defaultExpires, renderSecurityTxt } from '../posture/security-txt.js';

/** `GET /.well-known/security.txt` (RFC 9116), rendered once from the settings. */
export function securityTxtRoutes(config: Config, startedAt: number) {
  const text = renderSecurityTxt({
    contacts: config.securityContact,
    expires: config.securityTxtExpires ?? defaultExpires(startedAt),
    encryption: config.securityEncryptionUrl,
    policy: config.securityPolicyUrl,
    canonical: `${config.publicUrl}/.well-known/security.txt`,
    preferredLanguages: ['en'],
  });
  return async function register(app: FastifyInstance): Promise<void> {
    app.get('/.well-known/security.txt', { config: { public: true } }, async (_request, reply) => {
      return reply.header('content-type', 'text/plain; charset=utf-8').header('cache-control', 'public, max-age=86400').send(text);
    });
  };
}
