// Every run's events through the SockJS event-bus bridge (vendored sockjs-client + vertx-eventbus.js, loaded
// before this module; they define the global EventBus).
// Each step is named by its label in the served graph, and a run's card is marked ended when a node that ends a run
// finishes.
import { setConnection as status } from './dom.js';
import { api, tokenQuery } from './access.js';
import { loadGraph, label, endsRun } from './graph.js';

const list = document.getElementById('watch');
const runs = new Map();

function runCard(id) {
  let r = runs.get(id);
  if (r) return r;
  const li = document.createElement('li');
  li.className = 'card watch-run';
  const h = document.createElement('h2');
  h.textContent = 'Run ' + id.slice(0, 8);
  const ol = document.createElement('ol');
  ol.className = 'watch-events';
  li.append(h, ol);
  list.prepend(li);
  document.getElementById('empty-state').hidden = true;
  r = { li, h, ol };
  runs.set(id, r);
  while (list.children.length > 30) { const last = list.lastElementChild; runs.delete(last.dataset.runId); last.remove(); }
  li.dataset.runId = id;
  return r;
}

function onEvent(ev) {
  const r = runCard(ev.run_id);
  const d = ev.data || {};
  if (!r.titled && ev.status === 'started' && typeof d.question === 'string' && d.question) {
    r.h.textContent = d.question;                         // the run's first step names its question
    r.titled = true;
  }
  if (ev.status === 'progress') return;                   // token deltas: too chatty for this list
  const li = document.createElement('li');
  li.className = ev.status;
  li.dataset.node = ev.node;
  const detail = d.error_type ? ' ' + d.error_type : d.next ? ' → ' + d.next : d.strategy ? ' ' + d.strategy
    : d.row_count != null ? ' ' + d.row_count + ' rows' : '';
  li.textContent = '#' + ev.seq + ' attempt ' + ev.attempt + ' ' + label(ev.node) + ' ' + ev.status + detail;
  r.ol.append(li);
  if (endsRun(ev.node) && ev.status === 'finished' && !r.li.classList.contains('ended')) {
    r.li.classList.add('ended');
    const end = document.createElement('span');
    end.className = 'watch-ended';
    end.textContent = ' · ' + label(ev.node);
    r.h.append(end);
  }
}

function connect() {
  status('connecting', 'Connecting…');
  const eb = new EventBus('/eventbus' + tokenQuery());
  eb.enableReconnect(true);
  eb.onopen = () => {
    status('open', 'Live');
    eb.registerHandler('sqlagent.events', (err, msg) => {
      if (err) { status('closed', 'Not allowed: ' + (err.message || err.failureType || 'refused')); return; }
      onEvent(msg.body);
    });
  };
  eb.onclose = () => status('closed', 'Reconnecting…');
}

await loadGraph(api);
connect();
