import { Readable } from 'node:stream';
import { eraseUser } from '../gdpr/erase-user.js';
import { retentionPreview } from '../gdpr/retention-policies.js';
import { subjectExport } from '../gdpr/subject-export.js';
import { pathId } from '../http/path-id.js';
import type { Handlers } from './handler.js';

/** The GDPR operations (`src/actions/gdpr-actions.ts`). */
export const gdprHandlers: Handlers = {
  /** Erasure by depersonalisation (GDPR Art. 17). */
  'users.erase': async (input, { resources, idempotency }) => {
    return { status: 200, body: await eraseUser(resources, idempotency, input.context, pathId(input.params.id ?? '', 'users')) };
  },
  /** The subject's data as one streamed JSON document (GDPR Art. 15, 20). */
  'users.export': async (input, { resources }) => {
    const id = pathId(input.params.id ?? '', 'users');
    const chunks = await subjectExport(resources, input.context, id);
    return {
      status: 200,
      headers: { 'content-type': 'application/json; charset=utf-8', 'content-disposition': `attachment; filename="user-${id}.json"`, 'cache-control': 'no-store' },
      stream: Readable.from(chunks),
    };
  },
  /** What the next retention run would do. */
  'retention-policies.preview': async (input, { resources }) => {
    return { status: 200, body: await retentionPreview(resources, input.context, pathId(input.params.id ?? '', 'retention-policies')) };
  },
};
