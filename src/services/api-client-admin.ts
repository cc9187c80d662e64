import type { Database } from '../db/dialect.js';
import { notFound } from '../http/errors.js';
import { getResource } from '../registry/index.js';
import { runUnitOfWork } from '../data/unit-of-work.js';
import type { Clock } from '../core/clock.js';
import { addClientKey, parsePublicKey } from './client-keys.js';
import type { ClientKeyView } from './client-keys.js';
import type { RequestContext } from '../core/request-context.js';

const apiClients = getResource('api-clients');

/** The body of `POST /v1/api-clients/{id}/keys`, as its schema (`addClientKeySchema`) admits it. */
export interface AddKeyInput {
  readonly public_key: string;
  readonly kid?: string;
  readonly overlap_days?: number;
}

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

  /**
   * Adds a public key to a client in the caller's reach; earlier keys expire after the
   * overlap. A key is control over the client: the grant ceiling (the caller holds its
   * capabilities) is checked on the client's update below, for the call's target.
   */
  async addKey(context: RequestContext, clientId: string, body: AddKeyInput): Promise<AddKeyResult> {
    const { public_key: pem, kid } = body;
    const overlapDays = body.overlap_days ?? this.defaultOverlapDays;
    const key = await parsePublicKey(pem, 'public_key');
    return runUnitOfWork(this.database, this.clock, context, async (unit) => {
      const client = await unit.find(apiClients, clientId, { lock: 'update' });
      if (!client) throw notFound('api-clients');
      const { added, retired } = await addClientKey(unit.trx, unit.dialect, clientId, key, kid, unit.now, overlapDays);
      const until = new Date(unit.now + overlapDays * 86_400_000).toISOString();
      const retiredViews = retired.map((k) => ({ kid: k, active_until: until }));
      // The key list is part of the client's representation, so its ETag moves too.
      await unit.update(
        apiClients,
        client,
        String(client.etag),
        {},
        {
          action: 'rotate-key',
          audit: { old: null, new: { kid: added.kid, alg: added.alg, thumbprint: added.thumbprint, retired: retiredViews } },
        },
      );
      await unit.invalidate('client', clientId);
      return { client_id: clientId, kid: added.kid, key: added, retired: retiredViews };
    });
  }
}
