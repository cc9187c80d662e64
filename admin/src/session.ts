import { signal } from './signal.js';
import { api } from './api.js';

/** The claims of a user access token the console reads (never trusted: the API decides). */
export interface SessionClaims {
  readonly sub: string;
  readonly tenant_id: string;
  readonly scope: string;
  readonly amr?: readonly string[];
  readonly exp: number;
}

export interface Session {
  readonly token: string;
  readonly claims: SessionClaims;
  readonly capabilities: ReadonlySet<string>;
}

/** Minutes without a key press, click or request before the console signs out. */
export const idleMinutes = 15;

export const session = signal<Session | undefined>(undefined);

let idleTimer: ReturnType<typeof setTimeout> | undefined;

function decodeClaims(token: string): SessionClaims {
  const payload = token.split('.')[1] ?? '';
  const json = atob(
    payload
      .replace(/-/g, '+')
      .replace(/_/g, '/')
      .padEnd(Math.ceil(payload.length / 4) * 4, '='),
  );
  return JSON.parse(json) as SessionClaims;
}

/** Starts a session from an access token: memory only, ends on idle, expiry or sign-out. */
export function startSession(token: string): Session {
  const claims = decodeClaims(token);
  const value: Session = { token, claims, capabilities: new Set(claims.scope.split(' ').filter(Boolean)) };
  api.setToken(token);
  session.set(value);
  touch();
  return value;
}

export function signOut(): void {
  api.setToken(undefined);
  if (idleTimer) clearTimeout(idleTimer);
  idleTimer = undefined;
  session.set(undefined);
}

/** Activity: the idle timeout starts again. */
export function touch(): void {
  if (!session.get()) return;
  if (idleTimer) clearTimeout(idleTimer);
  const expiresIn = (session.get()?.claims.exp ?? 0) * 1000 - Date.now();
  idleTimer = setTimeout(signOut, Math.max(0, Math.min(idleMinutes * 60_000, expiresIn)));
}

api.onUnauthorized = signOut;
for (const event of ['keydown', 'pointerdown']) addEventListener(event, touch, { passive: true });
