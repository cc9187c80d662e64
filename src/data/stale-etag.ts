import { ApiError } from '../http/errors.js';

/** 412: the record changed since the caller read it (or `If-Match` is not its current ETag). */
export function staleEtag(): ApiError {
  return new ApiError('precondition_failed', 'The record has changed since it was read (or If-Match is not its current ETag); read it again and retry with the new ETag');
}
