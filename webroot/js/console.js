// The SQL console: one SELECT run through the same gate as every answer (POST /api/query), its result paged and
// exportable. It needs no model, so it works when none is reachable.
import { $, el, plural } from './dom.js';
import { apiPost } from './access.js';
import { resultTable } from './answer.js';
import { exportBar } from './export.js';

export function setupConsole() {
  const form = $('#console-form');
  const box = $('#console-sql');
  const out = $('#console-result');
  form.addEventListener('submit', async e => {
    e.preventDefault();
    const sql = box.value.trim();
    if (!sql) {
      out.replaceChildren(el('p', 'field-error', 'Type a SELECT first.'));
      box.focus();
      return;
    }
    out.replaceChildren(el('p', 'muted', 'Running…'));
    try {
      const res = await apiPost('/api/query', { sql });
      const body = await res.json();
      if (!body.ok) {
        out.replaceChildren(el('p', 'notice notice-bad console-error',
          (body.error_type || 'error') + ': ' + (body.message || 'the query failed') + (body.hint ? ' ' + body.hint : '')));
        return;
      }
      const parts = [el('p', 'console-count muted', plural(body.row_count, 'row') + (body.truncated ? ' shown; the query matched more (export for all)' : ''))];
      parts.push(resultTable(body), exportBar({ sql }));
      out.replaceChildren(...parts);
    } catch (err) {
      out.replaceChildren(el('p', 'notice notice-bad console-error', 'The query could not be sent: ' + err.message));
    }
  });
}
