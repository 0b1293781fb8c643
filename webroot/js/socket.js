// The /ws WebSocket: reconnects with backoff, queues what is sent while it is down, and replays what a run missed.
import { setConnection, showBanner } from './dom.js';
import { api, tokenQuery } from './access.js';

let ws = null;
let wsOpen = false;
let retryDelay = 500;
const queue = [];                   // messages sent while (re)connecting
export const runs = new Map();      // run_id -> Run
const pendingAsks = [];             // Runs waiting for their "accepted" (matched in order)

function wsUrl() {
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  return scheme + '//' + location.host + '/ws' + tokenQuery();
}

export function connect() {
  setConnection('connecting', 'Connecting…');
  const socket = new WebSocket(wsUrl());
  ws = socket;
  socket.onopen = () => {
    wsOpen = true;
    retryDelay = 500;
    setConnection('open', 'Live');
    while (queue.length) socket.send(queue.shift());
    // Catch up on runs that were in progress when the connection dropped.
    runs.forEach(run => { if (!run.ended) run.catchUp(); });
  };
  socket.onmessage = e => {
    let msg;
    try { msg = JSON.parse(e.data); } catch (_) { return; }
    onMessage(msg);
  };
  socket.onclose = async e => {
    const wasOpen = wsOpen;
    wsOpen = false;
    if (ws !== socket) return;
    if (!wasOpen) {
      // The upgrade was refused: maybe a token is needed (the WebSocket API hides the status).
      try {
        const probe = await api('/api/runs/00000000-probe/events');
        if (probe.status === 401) return;
      } catch (_) { /* api() asked for a token; reconnect below */ }
    }
    // 1013: the page read too slowly; 4401: the sign-on token expired (the reconnect is then refused and signs in).
    setConnection('closed', e.code === 1013 ? 'Too slow — reconnecting…'
      : e.code === 4401 ? 'Sign-in expired — reconnecting…' : 'Reconnecting…');
    pendingAsks.splice(0).forEach(run => run.failed('the connection dropped before the run started; ask again'));
    setTimeout(connect, retryDelay);
    retryDelay = Math.min(retryDelay * 2, 8000);
  };
}

export function send(obj) {
  const text = JSON.stringify(obj);
  if (wsOpen) ws.send(text); else queue.push(text);
}

/** Sends a question for a run on the page; the server's "accepted" gives the run its id. */
export function ask(run, message) {
  pendingAsks.push(run);
  send(message);
}

function onMessage(msg) {
  switch (msg.type) {
    case 'accepted': {
      const run = pendingAsks.shift();
      if (run) { run.setId(msg.run_id); runs.set(msg.run_id, run); }
      break;
    }
    case 'event': {
      const run = runs.get(msg.run_id);
      if (run) run.onEvent(msg);
      break;
    }
    case 'answer': {
      const run = runs.get(msg.run_id);
      if (run) run.onAnswer(msg);
      break;
    }
    case 'replay_end': {
      const run = runs.get(msg.run_id);
      if (run) run.onReplayEnd();
      break;
    }
    case 'error': {
      const run = msg.run_id ? runs.get(msg.run_id) : pendingAsks.shift();
      if (run) run.failed(msg.message); else showBanner(msg.message, 'error');
      break;
    }
    default:
      break;
  }
}
