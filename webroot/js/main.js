// sql-agent page: asks over the /ws WebSocket and draws each run as it happens. No build step, no library.
import { $ } from './dom.js';
import { api } from './access.js';
import { connect, ask } from './socket.js';
import { Run } from './timeline.js';
import { Thread } from './conversation.js';
import { loadVerified } from './verified.js';
import { loadSchema } from './schema.js';
import { loadEval } from './evaluation.js';
import { showStatus } from './status.js';
import { setupConsole } from './console.js';
import { loadGraph } from './graph.js';
import { startRunsWith, startRun } from './start.js';

// Every run on the page starts the same way: its card in the thread, then its message over the socket.
startRunsWith(({ question, mode, message, badge }) => {
  const run = new Run(question, mode);
  if (badge) run.badge(badge.text, badge.title);
  ask(run, message);
  return run;
});

const form = $('#ask-form');
const box = $('#question');

box.addEventListener('keydown', e => {
  if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
    e.preventDefault();
    form.requestSubmit();
  }
});

// ArrowUp / ArrowDown in an empty (or recalled) box walk through the questions asked in this tab.
const asked = [];
let recall = 0;
box.addEventListener('keydown', e => {
  if ((e.key !== 'ArrowUp' && e.key !== 'ArrowDown') || !asked.length) return;
  if (box.value && box.value !== asked[recall]) return;
  e.preventDefault();
  recall = Math.max(0, Math.min(asked.length, recall + (e.key === 'ArrowUp' ? -1 : 1)));
  box.value = asked[recall] || '';
});

form.addEventListener('submit', e => {
  e.preventDefault();
  const question = box.value.trim();
  const err = $('#ask-error');
  if (!question) {
    err.textContent = 'Type a question first.';
    err.hidden = false;
    box.setAttribute('aria-invalid', 'true');
    box.focus();
    return;
  }
  err.hidden = true;
  box.removeAttribute('aria-invalid');
  const mode = form.querySelector('input[name=mode]:checked').value;
  startRun({ question, mode, message: { type: 'ask', question, mode, conversation_id: Thread.id || undefined } });
  asked.push(question);
  recall = asked.length;
  box.value = '';
});

$('#new-conversation').addEventListener('click', () => Thread.reset());

await loadSchema();          // first: it asks for a token when one is needed
await loadGraph(api);        // before any event: the steps are drawn and labelled from it
await Thread.restore();      // a reload keeps the conversation
connect();
loadVerified();
loadEval();
showStatus();
setupConsole();
box.focus();
