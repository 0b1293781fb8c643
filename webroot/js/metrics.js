// The governed metrics an answer's SQL computes, each with the definition the notes file gives it, under the SQL.
import { el } from './dom.js';

/** The answer's metrics and their definitions, or null when it used none. */
export function metricsOf(answer) {
  const metrics = answer.metrics || [];
  if (!metrics.length) return null;
  const box = el('div', 'metrics-used');
  box.append(el('span', 'label', metrics.length === 1 ? 'Metric used' : 'Metrics used'));
  const list = el('ul', 'metric-list');
  metrics.forEach(m => {
    const li = el('li', 'metric');
    li.append(el('strong', 'metric-name', m.name), el('span', null, ' = '), el('code', 'metric-sql', m.sql));
    if ((m.filters || []).length) li.append(el('span', 'metric-filters', ' where ' + m.filters.join(' and ')));
    if (m.description) li.append(el('p', 'metric-description', m.description));
    list.append(li);
  });
  box.append(list);
  return box;
}
