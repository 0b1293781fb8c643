// Edit and re-run: the SQL of an answer, edited in place and run through the gate as the next turn of the
// conversation (a new run marked "edited", with the same steps, errors and hints as the agent's own attempts).
import { el } from './dom.js';
import { startRun } from './start.js';

/** The "Edit SQL" control under an answer's SQL: a box with the SQL, and a button that runs the edit. */
export function editControl(answer) {
  const wrap = el('div', 'rerun');
  const open = el('button', 'rerun-open', 'Edit SQL');
  open.type = 'button';
  const form = el('div', 'rerun-form');
  form.hidden = true;
  const box = el('textarea', 'rerun-sql');
  box.rows = Math.min(12, Math.max(3, (answer.sql || '').split('\n').length + 1));
  box.spellcheck = false;
  box.value = answer.sql || '';
  box.setAttribute('aria-label', 'SQL to run');
  const go = el('button', 'rerun-run', 'Run edited SQL');
  go.type = 'button';
  const note = el('span', 'rerun-note muted',
    'Runs through the same gate, read-only. A query you edit is not repaired by the model: its error and hint are shown.');
  const error = el('span', 'rerun-error notice notice-bad');
  error.hidden = true;
  form.append(box, go, note, error);
  open.addEventListener('click', () => {
    form.hidden = !form.hidden;
    if (!form.hidden) box.focus();
  });
  go.addEventListener('click', () => {
    const sql = box.value.trim();
    if (!sql) {
      error.textContent = 'Write a SELECT first.';
      error.hidden = false;
      return;
    }
    error.hidden = true;
    runEdited(answer, sql);
  });
  wrap.append(open, form);
  return wrap;
}

/** Starts the edited run: a new card in the conversation, marked edited. */
export function runEdited(answer, sql) {
  return startRun({
    question: answer.question || 'Edited query',
    mode: 'agent',
    message: { type: 'rerun', run_id: answer.run_id, sql },
    badge: { text: 'edited', title: 'Your SQL, edited from an earlier answer; not written by the model' },
  });
}
