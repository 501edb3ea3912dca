// Who may talk to ctxproxy, decided before any route runs, by one small
// middleware per rule, in this order:
//   1. without --auth-token, only clients on this machine (the socket's address);
//   2. with a token, an address that keeps sending wrong ones waits (429, see
//      authThrottle.ts): the token checks note each result, this guard counts them;
//   3. the `Host` header must name this server (DNS rebinding: a page on
//      evil.example whose name resolves to 127.0.0.1 sends `Host: evil.example`);
//   4. a browser request from another site (`Origin`, `Sec-Fetch-Site`) is refused
//      unless its origin is listed in --allowed-origins; those get hono's `cors`;
//   5. a request with a body must say `Content-Type: application/json`, so that
//      the "simple" requests a page may send anywhere without asking (no-cors
//      fetch, sendBeacon, a form) cannot run a chat. The audit sign-in form is
//      the one exception, and only from the audit page's own origin (hono's `csrf`).
// Why rule 4 is ours and not hono's `csrf`: that one lets every GET through and
// every JSON body (it leaves those to CORS), but a cross-site page must not read
// /api/audit either, nor run a chat through a rebound name.
// Refusals are counted and logged with sizes only; the audit log stores nothing
// of them (app.ts checks the `accessRefused` variable set here).

import type { Context, MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';
import { csrf } from 'hono/csrf';
import { HTTPException } from 'hono/http-exception';
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

type Guard = MiddlewareHandler<{ Variables: AccessGuardVariables }>;

export interface AccessGuard {
  /** The rules above, in order; `app.use('*', ...guard.middleware)`. */
  middleware: Guard[];
  /** Refusals since start-up, by reason. */
  refusals(): Record<RefusalReason | 'total', number>;
}

/** Loopback names are always served. The port is not checked: rebinding controls the name only. */
const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];
const JSON_TYPE = /^application\/(?:[\w.+-]*\+)?json$/;
const FORM_TYPES = new Set(['application/x-www-form-urlencoded', 'multipart/form-data']);
/** What a browser app on an allowed origin may read of an answer. */
const EXPOSED = ['X-Ctx-Snapshot-Id', 'X-Ctx-Mode', 'X-Ctx-Warning', 'X-Request-Id', 'Link'];
/** `none` is the user's own doing (address bar, bookmark); `same-site` includes other ports of localhost. */
const SAME_ORIGIN_SITES = new Set(['same-origin', 'none']);
const BODYLESS_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function createAccessGuard(options: AccessGuardOptions): AccessGuard {
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

  const middleware: Guard[] = [
    ...(options.remoteClientsAllowed ? [] : [loopbackOnly(options.remoteAddress, refuse)]),
    ...(options.authThrottle ? [throttleWrongTokens(options.authThrottle, options.remoteAddress, refuse)] : []),
    allowedHostsOnly([...(options.host ? [options.host] : []), ...(options.allowedHosts ?? [])], refuse),
    sameOriginOnly(options.allowedOrigins ?? [], refuse),
    jsonBodiesOnly(options.formPaths ?? [], refuse),
  ];
  return {
    middleware,
    refusals: () => ({ total: Object.values(counts).reduce((sum, n) => sum + n, 0), ...counts }),
  };
}

type Refuse = (c: Context, reason: RefusalReason, error: ProxyError) => never;

function loopbackOnly(remoteAddress: (c: Context) => string | undefined, refuse: Refuse): Guard {
  return async (c, next) => {
    if (!isLoopback(remoteAddress(c))) {
      refuse(
        c,
        'remote-address',
        new ForbiddenError(
          'ctxproxy serves only clients on this machine unless it is started with an auth token (CTXPROXY_AUTH_TOKEN).',
          'remote_client_not_allowed',
        ),
      );
    }
    await next();
  };
}

/** While an address waits, nothing from it is looked at; after the request, its token check (if any) counts. */
function throttleWrongTokens(
  throttle: AuthThrottle,
  remoteAddress: (c: Context) => string | undefined,
  refuse: Refuse,
): Guard {
  return async (c, next) => {
    const address = remoteAddress(c) ?? 'unknown';
    const waitMs = throttle.waitMs(address);
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
    await next();
    const check = tokenCheckOf(c);
    if (check) throttle.record(address, check === 'right');
  };
}

function allowedHostsOnly(extraNames: readonly string[], refuse: Refuse): Guard {
  const names = new Set([...LOOPBACK_NAMES, ...extraNames.map(bareHostName)]);
  return async (c, next) => {
    if (!names.has(bareHostName(requestHost(c)))) {
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
    await next();
  };
}

/** Another site's request is refused, or, from a listed origin, answered with hono's CORS (preflight included). */
function sameOriginOnly(allowedOrigins: readonly string[], refuse: Refuse): Guard {
  const allowed = new Set(allowedOrigins.map((origin) => origin.toLowerCase()));
  const corsForAllowed = cors({
    // Only reached for a listed origin (checked below), so the origin is echoed as sent.
    origin: (origin) => origin,
    allowMethods: ['GET', 'POST', 'OPTIONS'],
    exposeHeaders: EXPOSED,
    maxAge: 600,
  });
  return async (c, next) => {
    const origin = c.req.header('origin');
    const site = c.req.header('sec-fetch-site');
    const crossSite =
      (origin !== undefined && !fromOwnOrigin(c, origin, site)) || (site !== undefined && !SAME_ORIGIN_SITES.has(site));
    if (!crossSite || isTopLevelNavigation(c, origin)) return next();
    if (origin === undefined || !allowed.has(origin.toLowerCase())) {
      refuse(
        c,
        'origin',
        new ForbiddenError(
          'A web page from another origin may not call ctxproxy. ' +
            'To let a browser app call it directly, list its origin with --allowed-origins or CTXPROXY_ALLOWED_ORIGINS.',
          'origin_not_allowed',
        ),
      );
    }
    return corsForAllowed(c, next);
  };
}

/** Bodies are JSON; the audit forms only from the audit page's own origin (hono's `csrf` decides that). */
function jsonBodiesOnly(formPaths: readonly string[], refuse: Refuse): Guard {
  const forms = new Set(formPaths);
  const ownPageOnly = csrf({
    origin: (origin, c) => fromOwnOrigin(c, origin, undefined),
    secFetchSite: 'same-origin',
  });
  const fromOwnPage = async (c: Context): Promise<boolean> => {
    try {
      await ownPageOnly(c, async () => {});
      return true;
    } catch (error) {
      if (error instanceof HTTPException) return false;
      throw error;
    }
  };
  return async (c, next) => {
    if (BODYLESS_METHODS.has(c.req.method)) return next();
    const type = (c.req.header('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    // A form is the one body a page on any site can send; only the audit page's own may.
    const ownForm = FORM_TYPES.has(type) && forms.has(c.req.path) && (await fromOwnPage(c));
    if (!JSON_TYPE.test(type) && !ownForm) {
      refuse(
        c,
        'content-type',
        new UnsupportedMediaTypeError(
          'Send the request body as JSON with the header "Content-Type: application/json".',
        ),
      );
    }
    await next();
  };
}

/** The `Host` the client asked for (lowercase, with its port). */
function requestHost(c: Context): string {
  return (c.req.header('host') ?? new URL(c.req.url).host).toLowerCase();
}

/**
 * The request comes from a page of ctxproxy itself. The audit pages send no referrer, so the browser
 * sends `Origin: null` with their own form posts; then Sec-Fetch-Site (which no page can set) tells.
 */
function fromOwnOrigin(c: Context, origin: string, site: string | undefined): boolean {
  return originHost(origin) === requestHost(c) || (origin === 'null' && site === 'same-origin');
}

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
