import { problems } from '../derive/openapi/problems.js';
import { ref } from '../derive/openapi/types.js';
import type { ActionDef } from './action.js';

const countMap = { type: 'object', additionalProperties: { type: 'integer' } };

const erasureResult = {
  type: 'object',
  properties: {
    user_id: { type: 'string' },
    erased_at: { type: 'string', format: 'date-time' },
    records: { ...countMap, description: 'Records referencing the user, per resource; all are depersonalised.' },
  },
  required: ['user_id', 'erased_at', 'records'],
};

/** `POST /v1/users/{id}/erase`: erasure by depersonalisation (GDPR Art. 17). */
export const eraseUserAction: ActionDef = {
  resource: 'users',
  name: 'erase',
  method: 'POST',
  path: '/v1/users/:id/erase',
  capability: 'users:erase',
  rateLimitGroup: 'writes',
  authentication: 'client',
  stepUp: true,
  openapi: {
    operationId: 'erase_users',
    summary: 'Erase a user by depersonalisation (GDPR Art. 17)',
    tags: ['users'],
    description:
      "Replaces every personal and special field of the user and of every record that references the user by its erasure rule, disables the user and sets `erased_at`; audit values of the user become unreadable (their key is destroyed). No body. Runs in short transactions (the user first, disabled at once; its records in batches of 100; `erased_at` last), so an erasure cut short is finished by calling again; a second call after a complete one changes nothing. 409 `legal_hold` names the holds that block it; 409 `conflict` when writers kept giving the user's records personal values (the user stays disabled; call again).",
    parameters: [ref('parameters', 'id')],
    responses: {
      200: { description: 'The user is erased.', content: { 'application/json': { schema: erasureResult } } },
      ...problems('400', '404', '409'),
    },
  },
  schemas: { response: { 200: erasureResult } },
};

/** `GET /v1/users/{id}/export`: the subject's data as one streamed JSON document (GDPR Art. 15, 20). */
export const exportSubjectAction: ActionDef = {
  resource: 'users',
  name: 'export',
  method: 'GET',
  path: '/v1/users/:id/export',
  capability: 'users:export',
  rateLimitGroup: 'exports',
  authentication: 'client',
  stepUp: false,
  openapi: {
    operationId: 'export_user_data',
    summary: "Export a user's data (GDPR Art. 15 and 20)",
    tags: ['users'],
    description:
      'Streams `{ "user": {…}, "records": { "<resource>": [ … ] }, "audit": [ … ], "generated_at": "…" }`: the user, every record of every resource that references users, and the audit entries about them. Soft-deleted data is still held until purged and is exported too: a soft-deleted user or record carries its `deleted_at`. Memory stays flat whatever the size.',
    parameters: [ref('parameters', 'id')],
    responses: {
      200: {
        description: 'The subject export.',
        content: {
          'application/json': {
            schema: {
              type: 'object',
              properties: {
                user: { type: 'object' },
                records: { type: 'object', additionalProperties: { type: 'array', items: { type: 'object' } } },
                audit: { type: 'array', items: { type: 'object' } },
                generated_at: { type: 'string', format: 'date-time' },
              },
            },
          },
        },
      },
      ...problems('400', '404'),
    },
  },
  schemas: {},
};

const previewResult = {
  type: 'object',
  properties: {
    due: { type: 'integer', description: 'Records (or audit entries) the next run would delete or anonymise.' },
    held: { type: 'integer', description: 'Records past retention that a legal hold keeps.' },
  },
  required: ['due', 'held'],
};

/** `GET /v1/retention-policies/{id}/preview`: what the next retention run would do. */
export const previewRetentionAction: ActionDef = {
  resource: 'retention-policies',
  name: 'preview',
  method: 'GET',
  path: '/v1/retention-policies/:id/preview',
  capability: 'retention-policies:read',
  rateLimitGroup: 'reads',
  authentication: 'client',
  stepUp: false,
  openapi: {
    operationId: 'preview_retention_policies',
    summary: 'Preview the next run of a retention policy',
    tags: ['retention-policies'],
    description: 'Counts, without changing anything, the records the next retention run would touch (`due`) and those it skips for legal holds (`held`).',
    parameters: [ref('parameters', 'id')],
    responses: {
      200: { description: 'The preview.', content: { 'application/json': { schema: previewResult } } },
      ...problems('400', '404'),
    },
  },
  schemas: { response: { 200: previewResult } },
};
