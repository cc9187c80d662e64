/**
 * The content codings a request body declares in `Content-Encoding` (RFC 9110 §8.4),
 * lower-cased, without `identity` (no coding at all): empty for a plain body. The service
 * decodes none, so anything here means the bytes are not the media type they claim to be.
 */
export function contentCodings(header: string | readonly string[] | undefined): string[] {
  const values = Array.isArray(header) ? header : header === undefined ? [] : [header];
  return values
    .flatMap((value) => value.split(','))
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity');
}

/** The `charset` parameters of a `Content-Type` (RFC 9110 §8.3.2), lower-cased and unquoted. */
export function charsets(contentType: string | undefined): string[] {
  return (contentType ?? '')
    .split(';')
    .slice(1)
    .map((parameter) => parameter.split('='))
    .filter(([name]) => name?.trim().toLowerCase() === 'charset')
    .map(([, value = '']) =>
      value
        .trim()
        .replace(/^"(.*)"$/, '$1')
        .toLowerCase(),
    );
}
