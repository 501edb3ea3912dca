// Small pages: sign-in, and "not found" (an unknown snapshot or conversation).

import { Layout } from './layout.tsx';

export function LoginPage({ next, failed }: { next: string; failed: boolean }) {
  return (
    <Layout title="Sign in">
      <form class="login" method="post" action="/audit/login">
        <h1>Sign in</h1>
        <p class="muted small">This proxy was started with an auth token. Enter it to see the audit log.</p>
        {failed ? (
          <div class="notice error" role="alert">
            That token is not the one this proxy was started with.
          </div>
        ) : null}
        <input type="password" name="token" autocomplete="current-password" aria-label="Token" required autofocus />
        <input type="hidden" name="next" value={next} />
        <button type="submit">Sign in</button>
      </form>
    </Layout>
  );
}

export function NotFoundPage({ what, signedIn }: { what: string; signedIn: boolean }) {
  return (
    <Layout title="Not found" signedIn={signedIn}>
      <h1>Not found</h1>
      <p>{what}</p>
      <p>
        <a href="/audit">Back to the requests</a>
      </p>
    </Layout>
  );
}
