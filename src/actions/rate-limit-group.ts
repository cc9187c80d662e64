/** Endpoint groups with their own limits (docs/api.md "Rate limits"). */
export type RateLimitGroup = 'token' | 'reads' | 'writes' | 'exports' | 'public';
