// The audit browser's routes: the HTML pages under /audit and the same data
// as JSON under /api/audit. The main app mounts them with
// `app.route('/', auditRoutes(deps))`; its onError renders the ProxyErrors
// thrown here (404 snapshot_not_found, 400 bad filter, 401 missing token).

import { type Context, Hono, type MiddlewareHandler } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { AuthError, BadRequestError, NotFoundError, ProxyError } from '../shared/errors.ts';
import type { AuditStore } from '../shared/ports.ts';
import { sameSecret } from '../shared/sameSecret.ts';
import type { SnapshotSummary } from '../shared/types.ts';
import { pageFilterValues, parseApiFilters, parsePageFilters } from '../ui/auditFilters.ts';
import { ConversationPage } from '../ui/conversationPage.tsx';
import { DetailPage } from '../ui/detailPage.tsx';
import { snapshotPath } from '../ui/layout.tsx';
import { ListPage } from '../ui/listPage.tsx';
import { LoginPage, NotFoundPage } from '../ui/simplePages.tsx';
import { conversationTurns, listPage } from '../ui/snapshotPaging.ts';
import { type AuditSessions, auditSessions, DEFAULT_SESSION_TTL_MS } from './auditSessions.ts';
import { noteTokenCheck } from './authThrottle.ts';
import { bearerToken } from './guards.ts';

export interface AuditRoutesDeps {
  store: AuditStore;
  /** The turns of one conversation, from the store's index; without it the log is scanned. */
  conversation?: ((id: string) => SnapshotSummary[]) | undefined;
  /** When set, the pages need the sign-in cookie and the API the cookie or `Authorization: Bearer`. */
  authToken?: string | undefined;
  /** How long a sign-in lasts (12 h). */
  sessionTtlMs?: number | undefined;
  now?: (() => number) | undefined;
}

export const AUDIT_SESSION_COOKIE = 'ctxproxy_audit';
/** The audit pages' HTML forms (sign-in, sign-out): the only POSTs that are not JSON. */
export const AUDIT_FORM_PATHS = ['/audit/login', '/audit/logout'] as const;

/** The page of one snapshot, for linking from a response's `X-Ctx-Snapshot-Id`. */
export function snapshotPagePath(id: string): string {
  return snapshotPath(id);
}

/** Only our own pages are valid targets after sign-in (no open redirect). */
function safeNext(next: string | undefined): string {
  return next !== undefined && /^\/audit(?:[/?#]|$)/.test(next) && !next.includes('\\') ? next : '/audit';
}

function isAuthorized(c: Context, token: string, sessions: AuditSessions): boolean {
  if (sessions.has(getCookie(c, AUDIT_SESSION_COOKIE))) return true;
  const bearer = bearerToken(c.req.header('authorization'));
  if (bearer === undefined) return false;
  const right = sameSecret(bearer, token);
  noteTokenCheck(c, right);
  return right;
}

function pageGuard(token: string | undefined, sessions: AuditSessions): MiddlewareHandler {
  return async (c, next) => {
    if (token === undefined || c.req.path === '/audit/login' || isAuthorized(c, token, sessions)) return next();
    if (c.req.method !== 'GET') throw new AuthError('Sign in at /audit/login first.');
    const url = new URL(c.req.url);
    return c.redirect(`/audit/login?next=${encodeURIComponent(url.pathname + url.search)}`, 302);
  };
}

function apiGuard(token: string | undefined, sessions: AuditSessions): MiddlewareHandler {
  return async (c, next) => {
    if (token === undefined || isAuthorized(c, token, sessions)) return next();
    throw new AuthError('The audit API needs the auth token: send `Authorization: Bearer <token>`.');
  };
}

export function auditRoutes(deps: AuditRoutesDeps): Hono {
  const { store, authToken } = deps;
  const signedIn = authToken !== undefined;
  // In memory: a restart of ctxproxy signs everybody out.
  const sessions = auditSessions({ ttlMs: deps.sessionTtlMs ?? DEFAULT_SESSION_TTL_MS, now: deps.now ?? Date.now });
  const app = new Hono();

  // Paths spelled out (no `*`): a sub-app's `*` middleware would apply to the whole main app once mounted.
  // The security headers (CSP, no-store, nosniff …) are the main app's, on every answer (responseHead.ts).
  app.use('/audit/*', pageGuard(authToken, sessions));
  app.use('/api/audit/*', apiGuard(authToken, sessions));

  app.get('/audit/login', (c) => {
    const next = safeNext(c.req.query('next'));
    if (authToken === undefined || isAuthorized(c, authToken, sessions)) return c.redirect(next, 302);
    return c.html(LoginPage({ next, failed: false }));
  });

  app.post('/audit/login', async (c) => {
    const form = await c.req.parseBody();
    const next = safeNext(typeof form.next === 'string' ? form.next : undefined);
    if (authToken === undefined) return c.redirect(next, 303);
    const given = typeof form.token === 'string' ? form.token : '';
    const right = sameSecret(given, authToken);
    noteTokenCheck(c, right);
    if (!right) return c.html(LoginPage({ next, failed: true }), 401);
    setCookie(c, AUDIT_SESSION_COOKIE, sessions.create(), {
      httpOnly: true,
      sameSite: 'Strict',
      path: '/',
      maxAge: Math.floor(sessions.ttlMs / 1000),
    });
    return c.redirect(next, 303);
  });

  app.post('/audit/logout', (c) => {
    sessions.revoke(getCookie(c, AUDIT_SESSION_COOKIE));
    deleteCookie(c, AUDIT_SESSION_COOKIE, { path: '/' });
    return c.redirect(authToken === undefined ? '/audit' : '/audit/login', 303);
  });

  app.get('/audit/', (c) => c.redirect('/audit', 301));

  app.get('/audit', (c) => {
    const params = c.req.query();
    const { query, problems } = parsePageFilters(params);
    let page: ReturnType<typeof listPage>;
    try {
      page = listPage(store, query);
    } catch (error) {
      // A search the store cannot run (its own 400) is shown on the page, not as a JSON error.
      if (!(error instanceof ProxyError) || error.status !== 400) throw error;
      problems.push(error.message);
      page = { data: [], nextCursor: null };
    }
    const values = pageFilterValues(params);
    return c.html(ListPage({ page, values, problems, paged: query.before !== undefined, signedIn }));
  });

  app.get('/audit/conversations/:id', (c) => {
    const conversationId = c.req.param('id');
    const turns = conversationTurns(store, conversationId, deps.conversation);
    const notFound = () =>
      c.html(NotFoundPage({ what: `There is no conversation with id ${conversationId}.`, signedIn }), 404);
    if (turns.length === 0) return notFound();
    const at = c.req.query('at');
    const turn = Number(c.req.query('turn'));
    const atIndex = at === undefined ? -1 : turns.findIndex((summary) => summary.id === at);
    const index = atIndex >= 0 ? atIndex : Number.isInteger(turn) ? Math.min(Math.max(turn, 1), turns.length) - 1 : 0;
    const current = store.get(turns[index]?.id ?? '');
    if (!current) return notFound();
    const previousId = index > 0 ? turns[index - 1]?.id : undefined;
    const previous = previousId === undefined ? undefined : store.get(previousId);
    return c.html(ConversationPage({ conversationId, turns, index, current, previous, signedIn }));
  });

  app.get('/audit/:id', (c) => {
    const id = c.req.param('id');
    const snapshot = store.get(id);
    if (!snapshot) return c.html(NotFoundPage({ what: `There is no request with id ${id}.`, signedIn }), 404);
    return c.html(DetailPage({ snapshot, signedIn }));
  });

  app.get('/api/audit/snapshots', (c) => {
    const { query, problems } = parseApiFilters(c.req.query());
    if (problems.length > 0) throw new BadRequestError(`Bad audit filter: ${problems.join('; ')}.`, 'invalid_filter');
    const page = listPage(store, query);
    return c.json({ data: page.data, next_cursor: page.nextCursor });
  });

  app.get('/api/audit/snapshots/:id', (c) => {
    const id = c.req.param('id');
    const snapshot = store.get(id);
    if (!snapshot) throw new NotFoundError(`No audit snapshot with id ${id}.`, 'snapshot_not_found', 'id');
    return c.json(snapshot);
  });

  return app;
}
