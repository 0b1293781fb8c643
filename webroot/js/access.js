// The API token, when the service requires one: kept for this browser tab only, asked for in #token-dialog, or
// with a sign-on the token the sign-in gave (signin.js).
import { $ } from './dom.js';
import { signIn, finishSignIn } from './signin.js';

export const TOKEN_KEY = 'sqlagent.apiToken';

let token = sessionStorage.getItem(TOKEN_KEY) || '';
let asking = null;
let signInProblem = '';

try {
  const signedIn = await finishSignIn();
  if (signedIn) {
    token = signedIn;
    sessionStorage.setItem(TOKEN_KEY, token);
  }
} catch (e) {
  signInProblem = e.message;
}

export function currentToken() {
  return token;
}

/** "?access_token=…" for the WebSocket and the event-bus bridge (they cannot send a header), or "". */
export function tokenQuery() {
  return token ? '?access_token=' + encodeURIComponent(token) : '';
}

/** One question for a token at a time: every refused request waits for the same answer. */
function askForToken(message) {
  if (!asking) asking = obtainToken(message).finally(() => { asking = null; });
  return asking;
}

async function obtainToken(message) {
  if (!signInProblem && await signIn()) return;   // with a sign-on: off to its login page (never resolves)
  if (signInProblem) {
    message = signInProblem + (message ? ' ' + message : '');
    signInProblem = '';
  }
  const err = $('#token-error');
  err.hidden = !message;
  err.textContent = message || '';
  return new Promise(resolve => {
    $('#token-form').onsubmit = () => {
      token = $('#token-input').value.trim();
      sessionStorage.setItem(TOKEN_KEY, token);
      resolve();
    };
    $('#token-dialog').showModal();
    $('#token-input').focus();
  });
}

async function request(path, init, refused) {
  for (let tries = 0; tries < 4; tries++) {
    const headers = { Accept: 'application/json', ...(init.headers || {}) };
    if (token) headers.Authorization = 'Bearer ' + token;
    const res = await fetch(path, { ...init, headers });
    if (refused(res)) {
      const why = await res.clone().json().catch(() => ({}));
      await askForToken(token ? 'That token was not accepted' + (why.message ? ': ' + why.message : '') + '. Try again.' : '');
      continue;
    }
    return res;
  }
  throw new Error('not authorised');
}

/** GET a JSON resource, asking for a token when the service refuses without one. */
export function api(path) {
  return request(path, {}, res => res.status === 401 || res.status === 403 && res.headers.get('WWW-Authenticate'));
}

export function apiPost(path, body) {
  return request(path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body || {}) },
    res => res.status === 401);
}
