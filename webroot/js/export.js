// Export buttons: an answer's result (by its run) or the SQL console's query as CSV or XLSX, downloaded as a file.
// The server runs the SQL again through the gate with the export's own row cap and streams the file.
import { el } from './dom.js';
import { currentToken } from './access.js';

/** The bar of export buttons for a run ({runId}) or a console query ({sql}). */
export function exportBar(source) {
  const bar = el('div', 'export-bar');
  bar.append(el('span', 'label', 'Export'));
  const status = el('span', 'export-status');
  status.setAttribute('role', 'status');
  for (const format of ['csv', 'xlsx']) {
    const button = el('button', 'secondary export-' + format, format.toUpperCase());
    button.type = 'button';
    button.title = 'Download the whole result as ' + format.toUpperCase() + ' (the query runs again, up to the export row cap)';
    button.addEventListener('click', () => download(source, format, button, status));
    bar.append(button);
  }
  bar.append(status);
  return bar;
}

async function download(source, format, button, status) {
  button.disabled = true;
  status.textContent = 'Exporting…';
  try {
    const headers = {};
    const token = currentToken();
    if (token) headers.Authorization = 'Bearer ' + token;
    const res = source.runId
      ? await fetch('/api/runs/' + encodeURIComponent(source.runId) + '/export?format=' + format, { headers })
      : await fetch('/api/query/export', { method: 'POST', headers: { ...headers, 'Content-Type': 'application/json' },
          body: JSON.stringify({ sql: source.sql, format }) });
    if (!res.ok) {
      const body = await res.json().catch(() => ({}));
      status.textContent = 'Export failed: ' + (body.message || ('HTTP ' + res.status));
      return;
    }
    const blob = await res.blob();
    const name = fileName(res.headers.get('Content-Disposition')) || 'sql-agent.' + format;
    const a = el('a');
    a.href = URL.createObjectURL(blob);
    a.download = name;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 60000);
    status.textContent = 'Downloaded ' + name;
  } catch (e) {
    status.textContent = 'Export failed: ' + e.message;
  } finally {
    button.disabled = false;
  }
}

function fileName(disposition) {
  const m = /filename="([^"]+)"/.exec(disposition || '');
  return m ? m[1] : null;
}
