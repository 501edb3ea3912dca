// The page frame shared by every audit page: head, top bar, the inline
// stylesheet and script. Everything below is rendered through JSX, which
// escapes every interpolated value; the only raw strings are our own constants.

import { html } from 'hono/html';
import type { Child } from 'hono/jsx';
import { SCRIPT, STYLESHEET } from './pageAssets.ts';

export interface LayoutProps {
  title: string;
  /** Show the sign-out button (only when a token protects the pages). */
  signedIn?: boolean | undefined;
  children?: Child;
}

export function Layout({ title, signedIn, children }: LayoutProps) {
  return html`<!doctype html>${(
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        {/* No favicon request: the tool serves no static files. */}
        <link rel="icon" href="data:," />
        <title>{`${title} · ctxproxy audit`}</title>
        <style dangerouslySetInnerHTML={{ __html: STYLESHEET }} />
      </head>
      <body>
        <header class="top">
          <a class="brand" href="/audit">
            ctxproxy audit
          </a>
          <nav>
            <a href="/audit">Requests</a>
          </nav>
          {signedIn ? (
            <form method="post" action="/audit/logout">
              <button class="plain" type="submit">
                Sign out
              </button>
            </form>
          ) : null}
        </header>
        <main>{children}</main>
        <script dangerouslySetInnerHTML={{ __html: SCRIPT }} />
      </body>
    </html>
  )}`;
}

export function OutcomeBadge({ outcome }: { outcome: string }) {
  return <span class={`badge ${outcome}`}>{outcome}</span>;
}

export function snapshotPath(id: string): string {
  return `/audit/${encodeURIComponent(id)}`;
}

/** A conversation's page, at a turn (1-based) or at the turn of a snapshot id. */
export function conversationPath(id: string, at?: number | string): string {
  const base = `/audit/conversations/${encodeURIComponent(id)}`;
  if (at === undefined) return base;
  return typeof at === 'number' ? `${base}?turn=${at}` : `${base}?at=${encodeURIComponent(at)}`;
}
