// The latest evaluation beside the schema, one column per mode.
import { $, el, fmtMs } from './dom.js';
import { api } from './access.js';

export async function loadEval() {
  try {
    const res = await api('/api/eval/latest');
    if (!res.ok) return;                                  // 404: no evaluation yet
    const summary = await res.json();
    $('#eval-body').replaceChildren(renderEval(summary));
    $('#eval').hidden = false;
  } catch (_) { /* no evaluation to show */ }
}

// The eval summary: {run_id, finished_at, model, modes: {agent: {...}, baseline: {...}}}.
const EVAL_ROWS = [
  ['accuracy', 'accuracy', 'pct'],
  ['exact_matches', 'exact matches', 'n'],
  ['subset_matches', 'subset matches', 'n'],
  ['correct_refusals', 'correct refusals', 'of:refusals_expected'],
  ['false_refusals', 'false refusals', 'n'],
  ['first_attempt_failures', 'first-attempt failures', 'n'],
  ['rescued_by_repair', 'rescued by repair', 'of:first_attempt_failures'],
  ['mean_attempts_to_success', 'mean attempts to success', 'dec'],
  ['median_latency_ms', 'median latency', 'ms'],
  ['cost_usd', 'cost', 'usd'],
  ['unsafe_sql_reaching_execution', 'unsafe SQL executed', 'n'],
];

function renderEval(s) {
  const frag = document.createDocumentFragment();
  const when = s.finished_at || s.regraded_at || s.run_id;
  const meta = [when ? String(when).replace('T', ' ').replace(/\.\d+Z$/, ' UTC') : null, s.model].filter(Boolean).join(' · ');
  if (meta) frag.append(el('p', 'muted eval-meta', meta));
  const modes = s.modes && typeof s.modes === 'object' ? Object.keys(s.modes) : [];
  if (!modes.length) {
    frag.append(el('p', 'muted', 'An evaluation ran, but its summary has no per-mode numbers.'));
    return frag;
  }
  const table = el('table', 'eval-table');
  const head = el('tr');
  head.append(el('th', null, ''));
  modes.forEach(m => head.append(el('th', 'num', m === 'baseline' ? 'baseline' : m)));
  const thead = el('thead');
  thead.append(head);
  table.append(thead);
  const tbody = el('tbody');
  EVAL_ROWS.forEach(([key, label, fmt]) => {
    if (!modes.some(m => s.modes[m][key] !== undefined)) return;
    const tr = el('tr');
    const th = el('th', null, label);
    th.scope = 'row';
    tr.append(th);
    modes.forEach(m => tr.append(el('td', 'num', evalValue(s.modes[m], key, fmt))));
    tbody.append(tr);
  });
  table.append(tbody);
  frag.append(table);
  return frag;
}

function evalValue(o, key, fmt) {
  const v = o[key];
  if (v === undefined || v === null) return '—';
  if (fmt === 'pct') return (Number(v) * 100).toFixed(1) + '%';
  if (fmt === 'dec') return Number(v).toFixed(2);
  if (fmt === 'ms') return fmtMs(Number(v));
  if (fmt === 'usd') return '$' + Number(v).toFixed(4);
  if (fmt.startsWith('of:')) return v + ' of ' + (o[fmt.slice(3)] ?? '?');
  return String(v);
}
