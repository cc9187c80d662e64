/** A problem document (RFC 9457) the API answered with. */
export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    detail: string,
    readonly errors: readonly { field: string; message: string }[] = [],
  ) {
    super(detail);
  }
}

export interface ApiAnswer<T> {
  readonly status: number;
  readonly body: T;
  readonly headers: Headers;
}

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/**
 * The console's only way to the API: same origin, the session's access token in the
 * `Authorization` header (held in memory only, never in storage), JSON in and out.
 */
export class Api {
  private token: string | undefined;
  /** Called when the API no longer accepts the token (expired, revoked). */
  onUnauthorized: () => void = () => undefined;

  setToken(token: string | undefined): void {
    this.token = token;
  }

  async call<T>(method: Method, path: string, options: { body?: unknown; ifMatch?: string } = {}): Promise<ApiAnswer<T>> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    if (options.ifMatch) headers['if-match'] = options.ifMatch;
    const response = await fetch(path, { method, headers, credentials: 'omit', ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }) });
    const text = await response.text();
    const body = text ? (JSON.parse(text) as unknown) : undefined;
    if (!response.ok) {
      const problem = (body ?? {}) as { code?: string; error?: string; detail?: string; error_description?: string; errors?: { field: string; message: string }[] };
      if (response.status === 401 && this.token) this.onUnauthorized();
      throw new ApiProblem(response.status, problem.code ?? problem.error ?? 'error', problem.detail ?? problem.error_description ?? response.statusText, problem.errors ?? []);
    }
    return { status: response.status, body: body as T, headers: response.headers };
  }

  get<T>(path: string): Promise<ApiAnswer<T>> {
    return this.call<T>('GET', path);
  }
}

export const api = new Api();

/** A record's current ETag, read fresh: the API demands it in `If-Match` for every change. */
export async function etagOf(path: string): Promise<string> {
  const { headers } = await api.get<unknown>(path);
  return headers.get('etag') ?? '';
}

/** A human sentence for any failure, with field errors listed. */
export function describeError(error: unknown): string {
  if (error instanceof ApiProblem) {
    const fields = error.errors.map((e) => `${e.field}: ${e.message}`).join('; ');
    return fields ? `${error.message} (${fields})` : error.message;
  }
  return error instanceof Error ? error.message : String(error);
}
