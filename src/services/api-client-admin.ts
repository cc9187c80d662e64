import type { Database } from '../db/dialect.js';
import { notFound, validationError } from '../http/errors.js';
import type { FieldError } from '../http/errors.js';
import { getResource } from '../registry/index.js';
import { runUnitOfWork } from '../data/unit-of-work.js';
import type { Clock } from './clock.js';
import { addClientKey, isValidKid, parsePublicKey } from './client-keys.js';
import type { ClientKeyView } from './client-keys.js';
import type { RequestContext } from './request-context.js';

const apiClients = getResource('api-clients');

export interface AddKeyResult {
  readonly client_id: string;
  readonly kid: string;
  readonly key: ClientKeyView;
  /** Keys whose validity now ends at `active_until`. */
  readonly retired: readonly { readonly kid: string; readonly active_until: string }[];
}

/** Client key rotation, shared by the API and the CLI. */
export class ApiClientAdmin {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly defaultOverlapDays: number,
  ) {}

  /** Adds a public key to a client in the caller's reach; earlier keys expire after the overlap. */
  async addKey(context: RequestContext, clientId: string, body: unknown): Promise<AddKeyResult> {
    const { pem, kid, overlapDays } = this.parseBody(body);
    const key = await parsePublicKey(pem, 'public_key');
    return runUnitOfWork(this.database, this.clock, context, async (unit) => {
      const client = await unit.find(apiClients, clientId, { lock: 'update' });
      if (!client) throw notFound('api-clients');
      const { added, retired } = await addClientKey(unit.trx, unit.dialect, clientId, key, kid, unit.now, overlapDays);
      const until = new Date(unit.now + overlapDays * 86_400_000).toISOString();
      const retiredViews = retired.map((k) => ({ kid: k, active_until: until }));
      // The key list is part of the client's representation, so its ETag moves too.
      await unit.update(apiClients, client, String(client.etag), {}, {
        action: 'rotate-key',
        audit: { old: null, new: { kid: added.kid, alg: added.alg, thumbprint: added.thumbprint, retired: retiredViews } },
      });
      await unit.invalidate('client', clientId);
      return { client_id: clientId, kid: added.kid, key: added, retired: retiredViews };
    });
  }

  private parseBody(body: unknown): { pem: string; kid: string | undefined; overlapDays: number } {
    if (body === null || typeof body !== 'object' || Array.isArray(body)) throw validationError([{ field: 'body', message: 'must be a JSON object' }]);
    const errors: FieldError[] = [];
    const input = body as Record<string, unknown>;
    for (const key of Object.keys(input)) if (!['public_key', 'kid', 'overlap_days'].includes(key)) errors.push({ field: key, message: 'is not accepted here' });
    const { public_key: pem, kid, overlap_days: overlap } = input;
    if (typeof pem !== 'string' || pem.length > 4000) errors.push({ field: 'public_key', message: 'must be an SPKI PEM string' });
    if (kid !== undefined && !isValidKid(kid)) errors.push({ field: 'kid', message: 'must be 1-200 printable ASCII characters without spaces' });
    if (overlap !== undefined && (typeof overlap !== 'number' || !Number.isInteger(overlap) || overlap < 0 || overlap > 365)) errors.push({ field: 'overlap_days', message: 'must be a whole number of days from 0 to 365' });
    if (errors.length > 0) throw validationError(errors);
    return { pem: pem as string, kid: kid as string | undefined, overlapDays: (overlap as number | undefined) ?? this.defaultOverlapDays };
  }
}
