import type { Schema } from '../derive/openapi/types.js';

/**
 * The query schema of an operation that takes no query parameters: each one sent is
 * refused (400 naming it), never silently ignored (CONTRACT.md: "bad query parameter").
 */
export const noQuery: Schema = { type: 'object', properties: {}, additionalProperties: false };
