/** Endpoint groups with their own limits (CONTRACT.md "Rate limits"). */
export type RateLimitGroup = 'token' | 'reads' | 'writes' | 'exports' | 'public';
