// Asking back: a run whose candidates split (or whose model saw several readings) ends with its readings.
// Each is a choice; choosing one answers from that reading's SQL, through the gate, without another model call.
import { el, plural } from './dom.js';
import { startRun } from './start.js';

/** The readings of a run that asked which one was meant, as choices. */
export function readingsView(answer) {
  const c = answer.clarification;
  const box = el('div', 'clarify');
  box.setAttribute('role', 'group');
  box.setAttribute('aria-label', 'Which reading did you mean?');
  box.append(el('p', 'clarify-lead', c.reason === 'model_readings'
    ? 'The model read this question in several ways, and their results differ. Which did you mean?'
    : 'The candidate queries disagree: no reading has a majority. Which did you mean?'));
  const list = el('ol', 'readings');
  (c.readings || []).forEach(r => list.append(readingItem(answer, r)));
  box.append(list);
  return box;
}

function readingItem(answer, r) {
  const li = el('li', 'reading');
  li.dataset.reading = String(r.reading);
  li.append(el('div', 'reading-description', r.description),
    el('div', 'reading-facts muted', plural(r.row_count, 'row') + ' · ' + plural(r.votes, 'candidate')
      + (r.vote_pick ? ' · the vote’s pick' : '')));
  const pre = el('pre', 'sql reading-sql');
  pre.append(el('code', null, r.sql));
  li.append(pre, sampleTable(r));
  const choose = el('button', 'reading-choose', 'Use this reading');
  choose.type = 'button';
  choose.addEventListener('click', () => {
    li.closest('.clarify').querySelectorAll('.reading-choose').forEach(b => { b.disabled = true; });
    li.classList.add('chosen');
    startRun({
      question: answer.question || 'Chosen reading',
      mode: 'agent',
      message: { type: 'choose', run_id: answer.run_id, reading: r.reading },
      badge: { text: 'reading ' + r.reading, title: 'Answered from the reading you chose, without another model call' },
    });
  });
  const note = el('button', 'reading-note', 'Save as a note');
  note.type = 'button';
  const snippet = el('pre', 'reading-note-yaml');
  snippet.hidden = true;
  note.addEventListener('click', () => {
    snippet.textContent = noteYaml(answer.question, r.description);
    snippet.hidden = false;
    if (navigator.clipboard) navigator.clipboard.writeText(snippet.textContent).catch(() => {});
  });
  li.append(choose, note, snippet);
  return li;
}

/**
 * The choice as a term of the notes file (SQLAGENT_NOTES): the service never writes that file, so the entry is
 * shown (and copied) for its owner to add; from the next start the model reads the question this way.
 */
export function noteYaml(question, description) {
  const q = s => JSON.stringify(String(s || ''));
  return 'terms:\n  - term: ' + q(question) + '\n    means: ' + q(description) + '\n';
}

function sampleTable(r) {
  const cols = r.columns || [];
  const rows = r.sample || [];
  const table = el('table', 'result reading-sample');
  table.append(el('caption', null, rows.length ? 'How its result differs (' + plural(rows.length, 'row') + ')' : 'No rows'));
  const head = el('tr');
  cols.forEach(c => { const th = el('th', null, c.name); th.scope = 'col'; head.append(th); });
  const thead = el('thead');
  thead.append(head);
  const tbody = el('tbody');
  rows.forEach(row => {
    const tr = el('tr');
    row.forEach(v => tr.append(el('td', null, v === null ? 'NULL' : String(v))));
    tbody.append(tr);
  });
  table.append(thead, tbody);
  return table;
}
