// Signing in with the company's sign-on (OpenID Connect: the authorization-code flow with PKCE), when the service
// has one (GET /auth/config says so). The page is a public client: no secret, a fresh verifier per sign-in, the
// token kept for this browser tab only (sessionStorage) and sent as a bearer token like an API token.
const VERIFIER = 'sqlagent.signin.verifier';
const STATE = 'sqlagent.signin.state';
const SIGNED_IN_AT = 'sqlagent.signin.at';
/** A sign-in that ended this recently and is refused again is not retried at once (no redirect loop). */
const RETRY_AFTER_MS = 30000;

let config = null;

/** The sign-on's endpoints, or {oidc: false}. */
export function signOnConfig() {
  if (!config) {
    config = fetch('/auth/config', { headers: { Accept: 'application/json' } })
      .then(res => (res.ok ? res.json() : { oidc: false }))
      .catch(() => ({ oidc: false }));
  }
  return config;
}

function base64url(bytes) {
  let s = '';
  new Uint8Array(bytes).forEach(b => { s += String.fromCharCode(b); });
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function randomText(n) {
  const bytes = new Uint8Array(n);
  crypto.getRandomValues(bytes);
  return base64url(bytes);
}

function redirectUri() {
  return location.origin + location.pathname;
}

/**
 * Leaves for the sign-on's login page. Resolves false when there is no sign-on, or when a sign-in just ended and
 * its token was refused anyway (the caller then shows why); otherwise the page is leaving and it never resolves.
 */
export async function signIn() {
  const c = await signOnConfig();
  if (!c.oidc) return false;
  if (Date.now() - Number(sessionStorage.getItem(SIGNED_IN_AT) || 0) < RETRY_AFTER_MS) return false;
  const verifier = randomText(48);
  const state = randomText(16);
  const challenge = base64url(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier)));
  sessionStorage.setItem(VERIFIER, verifier);
  sessionStorage.setItem(STATE, state);
  const url = new URL(c.authorization_endpoint);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', c.client_id);
  url.searchParams.set('redirect_uri', redirectUri());
  url.searchParams.set('scope', c.scopes);
  url.searchParams.set('state', state);
  url.searchParams.set('code_challenge', challenge);
  url.searchParams.set('code_challenge_method', 'S256');
  location.assign(url.toString());
  return new Promise(() => {});
}

/**
 * On the way back from the sign-on (?code=…&state=…): the code and this tab's verifier are exchanged for a token at
 * the token endpoint. Resolves the access token, or null when this page load is not such a return; rejects with a
 * sentence for the person when the sign-in failed.
 */
export async function finishSignIn() {
  const params = new URLSearchParams(location.search);
  const code = params.get('code');
  const error = params.get('error');
  if (!code && !error) return null;
  const expected = sessionStorage.getItem(STATE);
  const verifier = sessionStorage.getItem(VERIFIER);
  sessionStorage.removeItem(STATE);
  sessionStorage.removeItem(VERIFIER);
  history.replaceState(null, '', location.pathname + location.hash);   // the code is used once; not left in the bar
  if (error) throw new Error('The sign-on refused the sign-in: ' + (params.get('error_description') || error));
  if (!expected || params.get('state') !== expected || !verifier) {
    throw new Error('That sign-in reply does not belong to this tab; sign in again.');
  }
  const c = await signOnConfig();
  if (!c.oidc) throw new Error('The service has no sign-on configured.');
  const res = await fetch(c.token_endpoint, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
    body: new URLSearchParams({
      grant_type: 'authorization_code', code, redirect_uri: redirectUri(), client_id: c.client_id, code_verifier: verifier,
    }),
  });
  const body = await res.json().catch(() => ({}));
  if (!res.ok || !body.access_token) {
    throw new Error('The sign-on gave no token (' + (body.error_description || body.error || 'HTTP ' + res.status) + ').');
  }
  sessionStorage.setItem(SIGNED_IN_AT, String(Date.now()));
  return body.access_token;
}
