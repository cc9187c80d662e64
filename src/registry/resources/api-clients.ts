import { defineResource } from '../define-resource.js';

export const apiClients = defineResource({
  name: 'api-clients',
  table: 'api_clients',
  description: 'A machine-to-machine client authenticating with private_key_jwt.',
  tenancy: 'owned',
  operations: ['list', 'read', 'create', 'update', 'delete'],
  systemOwned: true,
  fields: {
    client_id: { type: 'string', description: 'OAuth client_id (`iss`/`sub` of assertions); equals `_id`.', serverOwned: true, filterable: true, gdpr: 'pseudonymous' },
    name: { type: 'string', description: 'Display name.', required: true, maxLength: 200, filterable: true, sortable: true, gdpr: 'none' },
    capabilities: { type: 'string_list', format: 'capability', description: 'Capabilities assigned (the scopes a token may carry).', required: true, maxItems: 2000, gdpr: 'none' },
    ip_allowlist: { type: 'string_list', format: 'cidr', description: 'Source networks (CIDR, IPv4/IPv6) allowed to use the client; empty allows any.', default: [], maxItems: 100, gdpr: 'none' },
    disabled: { type: 'boolean', description: 'A disabled client cannot obtain tokens.', default: false, filterable: true, gdpr: 'none' },
    level: { type: 'string', description: "Hierarchy level of the client's tenant node.", serverOwned: true, filterable: true, gdpr: 'none' },
    public_key: { type: 'string', format: 'pem', description: 'First public key (SPKI PEM, EC P-256/P-384/P-521). Create only.', writeOnly: true, required: true, maxLength: 4000, gdpr: 'none' },
    kid: { type: 'string', description: 'Key id of the first key; default RFC 7638 thumbprint. Create only.', writeOnly: true, maxLength: 200, gdpr: 'none' },
    keys: { type: 'object', description: 'Registered public keys: kid, alg, thumbprint, created_at, active_until.', serverOwned: true, computed: true, gdpr: 'none' },
  },
});
