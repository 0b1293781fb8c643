// The schema panel: the tables the agent may read, with their notes and approximate row counts.
import { $, el, fmtNum } from './dom.js';
import { api } from './access.js';

export async function loadSchema() {
  const box = $('#schema');
  try {
    const res = await api('/api/schema');
    if (!res.ok) throw new Error('HTTP ' + res.status);
    const body = await res.json();
    const tables = (body.tables || []).slice().sort((a, b) => a.name.localeCompare(b.name));
    if (body.database) {
      $('#db-name').textContent = 'the ' + body.database + ' database';
      document.title = 'sql-agent — ask the ' + body.database + ' database';
    }
    const list = el('ul', 'schema-list');
    tables.forEach(t => {
      const li = el('li');
      const d = el('details');
      const s = el('summary');
      s.append(el('span', 'table-name', t.name), el('span', 'row-count', t.row_count == null ? '' : '≈ ' + fmtNum(t.row_count) + ' rows'));
      d.append(s);
      if (t.note) d.append(el('p', 'table-note', t.note));
      const cols = el('ul', 'columns');
      (t.columns || []).forEach(c => {
        const ci = el('li');
        const type = (c.type || '') + (c.domain_base ? ' (' + c.domain_base + ')' : '') + (c.nullable ? '' : ' not null');
        ci.append(el('span', 'col-name', c.name), el('span', 'col-type', type));
        if (c.enum_labels && c.enum_labels.length) ci.append(el('span', 'col-enum', c.enum_labels.join(' · ')));
        if (c.comment) ci.title = c.comment;
        cols.append(ci);
      });
      d.append(cols);
      li.append(d);
      if (t.note) li.append(el('p', 'table-note short', t.note));
      list.append(li);
    });
    box.replaceChildren(tables.length ? list : el('p', 'muted', 'No tables are visible.'));
  } catch (e) {
    box.replaceChildren(el('p', 'muted', 'The schema could not be loaded (' + e.message + ').'));
  } finally {
    box.setAttribute('aria-busy', 'false');
  }
}
