// Sign-in sessions of the audit pages: a random id in the cookie, its expiry
// kept here, in memory. Logging out revokes the id; restarting ctxproxy
// revokes every id. The cookie is worth nothing once revoked or expired, and
// it says nothing about the token.

export const DEFAULT_SESSION_TTL_MS = 12 * 3600_000;
/** Sign-ins need the token, so this is no attacker's lever; it only bounds a forgetful script. */
const MAX_SESSIONS = 1000;

export interface AuditSessions {
  readonly ttlMs: number;
  /** A new session id (256 random bits, base64url). */
  create(): string;
  has(id: string | undefined): boolean;
  revoke(id: string | undefined): void;
}

export function auditSessions(options: { ttlMs: number; now: () => number }): AuditSessions {
  const expiries = new Map<string, number>();
  const prune = () => {
    const now = options.now();
    for (const [id, expiry] of expiries) if (expiry <= now) expiries.delete(id);
    // Oldest first (a Map keeps insertion order).
    for (const id of expiries.keys()) {
      if (expiries.size < MAX_SESSIONS) break;
      expiries.delete(id);
    }
  };
  return {
    ttlMs: options.ttlMs,
    create() {
      prune();
      const bytes = crypto.getRandomValues(new Uint8Array(32));
      const id = btoa(String.fromCharCode(...bytes))
        .replace(/\+/g, '-')
        .replace(/\//g, '_')
        .replace(/=+$/, '');
      expiries.set(id, options.now() + options.ttlMs);
      return id;
    },
    has(id) {
      if (id === undefined) return false;
      const expiry = expiries.get(id);
      if (expiry === undefined) return false;
      if (expiry > options.now()) return true;
      expiries.delete(id);
      return false;
    },
    revoke(id) {
      if (id !== undefined) expiries.delete(id);
    },
  };
}
