// Who may talk to ctxproxy, decided in one place, before any route runs:
//   1. without --auth-token, only clients on this machine (the socket's address);
//   2. the `Host` header must name this server (DNS rebinding: a page on
//      evil.example whose name resolves to 127.0.0.1 sends `Host: evil.example`);
//   3. a browser request from another site (`Origin`, `Sec-Fetch-Site`) is refused
//      unless its origin is listed in --allowed-origins, which also turns on CORS;
//   4. a request with a body must say `Content-Type: application/json`, so that
//      the "simple" requests a page may send anywhere without asking (no-cors
//      fetch, sendBeacon, a form) cannot run a chat. The audit sign-in form is
//      the one exception, and only from the audit page's own origin;
//   5. with a token, an address that keeps sending wrong ones waits (429, see
//      authThrottle.ts): the routes note each check, the guard counts them.
// Refusals are counted and logged with sizes only; the audit log stores nothing
// of them (app.ts checks the `accessRefused` variable set here).

import type { Context, MiddlewareHandler } from 'hono';
import {
  ForbiddenError,
  type ProxyError,
  TooManyAuthFailuresError,
  UnsupportedMediaTypeError,
} from '../shared/errors.ts';
import { bareHostName } from '../shared/hostName.ts';
import { isLoopback } from '../shared/loopback.ts';
import type { Logger } from '../shared/ports.ts';
import { type AuthThrottle, tokenCheckOf } from './authThrottle.ts';

export const REFUSAL_REASONS = ['remote-address', 'host', 'origin', 'content-type', 'auth-throttle'] as const;
export type RefusalReason = (typeof REFUSAL_REASONS)[number];

export type AccessGuardVariables = {
  /** Set when the guard turned the request away; the error handler then audits nothing of it. */
  accessRefused: RefusalReason;
  /** CORS headers for an allowed cross-site origin, for responses written outside Hono (SSE on Node). */
  corsHeaders: Record<string, string>;
};

export interface AccessGuardOptions {
  /** The --host value: also a name the server answers to. */
  host?: string | undefined;
  allowedHosts?: readonly string[] | undefined;
  allowedOrigins?: readonly string[] | undefined;
  /** With --auth-token, clients on other machines may connect (the token guards them); else loopback only. */
  remoteClientsAllowed: boolean;
  remoteAddress: (c: Context) => string | undefined;
  /** POST paths that take an HTML form (the audit sign-in and sign-out), accepted from the same origin only. */
  formPaths?: readonly string[] | undefined;
  /** With a token: slows down addresses that keep getting it wrong. */
  authThrottle?: AuthThrottle | undefined;
  logger: Logger;
}

export interface AccessGuard {
  middleware: MiddlewareHandler<{ Variables: AccessGuardVariables }>;
  /** Refusals since start-up, by reason. */
  refusals(): Record<RefusalReason | 'total', number>;
}

/** Loopback names are always served. The port is not checked: rebinding controls the name only. */
const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];
const JSON_TYPE = /^application\/(?:[\w.+-]*\+)?json$/;
const FORM_TYPES = new Set(['application/x-www-form-urlencoded', 'multipart/form-data']);
const EXPOSED = 'X-Ctx-Snapshot-Id, X-Ctx-Mode, X-Ctx-Warning, X-Request-Id, Link';

export function createAccessGuard(options: AccessGuardOptions): AccessGuard {
  const hostNames = new Set([
    ...LOOPBACK_NAMES,
    ...(options.host ? [bareHostName(options.host)] : []),
    ...(options.allowedHosts ?? []).map(bareHostName),
  ]);
  const allowedOrigins = new Set(options.allowedOrigins ?? []);
  const formPaths = new Set(options.formPaths ?? []);
  const counts: Record<RefusalReason, number> = {
    'remote-address': 0,
    host: 0,
    origin: 0,
    'content-type': 0,
    'auth-throttle': 0,
  };

  const refuse = (c: Context, reason: RefusalReason, error: ProxyError): never => {
    counts[reason] += 1;
    c.set('accessRefused', reason);
    // Sizes only: header values and bodies are the caller's text, possibly an attacker's.
    options.logger.warn('http.refused', {
      reason,
      method: c.req.method.slice(0, 10),
      route: c.req.path.replace(/[^\w/.-]/g, '?').slice(0, 100),
      status: error.status,
      bodyBytes: Number(c.req.header('content-length') ?? 0) || 0,
      hostBytes: c.req.header('host')?.length ?? 0,
      originBytes: c.req.header('origin')?.length ?? 0,
    });
    throw error;
  };

  const middleware: AccessGuard['middleware'] = async (c, next) => {
    if (!options.remoteClientsAllowed && !isLoopback(options.remoteAddress(c))) {
      refuse(
        c,
        'remote-address',
        new ForbiddenError(
          'ctxproxy serves only clients on this machine unless it is started with an auth token (CTXPROXY_AUTH_TOKEN).',
          'remote_client_not_allowed',
        ),
      );
    }

    const { authThrottle } = options;
    const address = options.remoteAddress(c) ?? 'unknown';
    const waitMs = authThrottle?.waitMs(address) ?? 0;
    if (waitMs > 0) {
      const seconds = Math.ceil(waitMs / 1000);
      c.header('Retry-After', String(seconds));
      refuse(
        c,
        'auth-throttle',
        new TooManyAuthFailuresError(
          `Too many wrong auth tokens from this address; try again in ${seconds} s. Every request from it waits until then.`,
        ),
      );
    }

    const host = (c.req.header('host') ?? new URL(c.req.url).host).toLowerCase();
    if (!hostNames.has(bareHostName(host))) {
      refuse(
        c,
        'host',
        new ForbiddenError(
          'The Host header names a server ctxproxy does not answer for (a guard against DNS rebinding). ' +
            'To reach ctxproxy under another name, list it with --allowed-hosts or CTXPROXY_ALLOWED_HOSTS.',
          'host_not_allowed',
        ),
      );
    }

    const origin = c.req.header('origin');
    const site = c.req.header('sec-fetch-site');
    // The audit pages send no referrer, so the browser sends `Origin: null` with their own form posts;
    // then Sec-Fetch-Site (which no page can set) tells whether it came from the same origin.
    const fromOwnOrigin =
      origin !== undefined && (originHost(origin) === host || (origin === 'null' && site === 'same-origin'));
    const crossSite = (origin !== undefined && !fromOwnOrigin) || (site !== undefined && !SAME_ORIGIN_SITES.has(site));
    if (crossSite && !isTopLevelNavigation(c, origin)) {
      if (origin === undefined || !allowedOrigins.has(origin.toLowerCase())) {
        refuse(
          c,
          'origin',
          new ForbiddenError(
            'A web page from another origin may not call ctxproxy. ' +
              'To let a browser app call it directly, list its origin with --allowed-origins or CTXPROXY_ALLOWED_ORIGINS.',
            'origin_not_allowed',
          ),
        );
      } else {
        const cors = {
          'Access-Control-Allow-Origin': origin,
          'Access-Control-Expose-Headers': EXPOSED,
          Vary: 'Origin',
        };
        if (c.req.method === 'OPTIONS' && c.req.header('access-control-request-method') !== undefined) {
          return c.body(null, 204, { ...cors, ...preflightHeaders(c.req.header('access-control-request-headers')) });
        }
        c.set('corsHeaders', cors);
        for (const [name, value] of Object.entries(cors)) c.header(name, value);
      }
    }

    if (!BODYLESS_METHODS.has(c.req.method)) {
      const type = (c.req.header('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
      const form = FORM_TYPES.has(type) && formPaths.has(c.req.path);
      // A form is the one body a page on any site can send; only the audit page's own may.
      const sameOrigin = fromOwnOrigin || site === 'same-origin';
      if (!JSON_TYPE.test(type) && !(form && sameOrigin)) {
        refuse(
          c,
          'content-type',
          new UnsupportedMediaTypeError(
            'Send the request body as JSON with the header "Content-Type: application/json".',
          ),
        );
      }
    }
    await next();
    const check = tokenCheckOf(c);
    if (authThrottle && check) authThrottle.record(address, check === 'right');
  };

  return {
    middleware,
    refusals: () => ({ total: Object.values(counts).reduce((sum, n) => sum + n, 0), ...counts }),
  };
}

/** `none` is the user's own doing (address bar, bookmark); `same-site` includes other ports of localhost. */
const SAME_ORIGIN_SITES = new Set(['same-origin', 'none']);
const BODYLESS_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

function originHost(origin: string): string | undefined {
  try {
    return new URL(origin).host.toLowerCase();
  } catch {
    return undefined; // `null` (a sandboxed frame, a file: page) is nobody's origin.
  }
}

/**
 * A link followed from another site to an audit page. The other site never sees
 * the answer of a top-level navigation, GET routes change nothing, and the
 * sign-in cookie (SameSite=Strict) is not sent with it; frames are not exempt.
 */
function isTopLevelNavigation(c: Context, origin: string | undefined): boolean {
  return (
    (c.req.method === 'GET' || c.req.method === 'HEAD') &&
    origin === undefined &&
    c.req.header('sec-fetch-mode') === 'navigate' &&
    c.req.header('sec-fetch-dest') === 'document'
  );
}

function preflightHeaders(requested: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {
    'Access-Control-Allow-Methods': 'GET, POST, OPTIONS',
    'Access-Control-Max-Age': '600',
  };
  // The SDKs send their own headers (x-stainless-*); echo the names the browser asks for, if they are names.
  if (requested && /^[\w-]+(?:\s*,\s*[\w-]+)*$/.test(requested.trim())) {
    headers['Access-Control-Allow-Headers'] = requested.trim().slice(0, 1000);
  }
  return headers;
}
