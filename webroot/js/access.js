// The API token, when the service requires one: kept for this browser tab only, asked for in #token-dialog.
import { $ } from './dom.js';

export const TOKEN_KEY = 'sqlagent.apiToken';

let token = sessionStorage.getItem(TOKEN_KEY) || '';
let tokenWaiters = null;

export function currentToken() {
  return token;
}

/** "?access_token=…" for the WebSocket and the event-bus bridge (they cannot send a header), or "". */
export function tokenQuery() {
  return token ? '?access_token=' + encodeURIComponent(token) : '';
}

function askForToken(message) {
  if (tokenWaiters) return new Promise(r => tokenWaiters.push(r));
  tokenWaiters = [];
  const err = $('#token-error');
  err.hidden = !message;
  err.textContent = message || '';
  return new Promise(resolve => {
    tokenWaiters.push(resolve);
    $('#token-form').onsubmit = () => {
      token = $('#token-input').value.trim();
      sessionStorage.setItem(TOKEN_KEY, token);
      const waiters = tokenWaiters;
      tokenWaiters = null;
      waiters.forEach(w => w());
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
      await askForToken(token ? 'That token was not accepted; try again.' : '');
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
