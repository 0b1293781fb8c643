// A run's answer: the text, the SQL, the facts, a chart when one fits, and the result table.
import { $, el, plural, fmtMs, showBanner } from './dom.js';
import { Charts } from './charts.js';
import { Thread } from './conversation.js';
import { editControl } from './rerun.js';
import { readingsView } from './clarify.js';
import { exportBar } from './export.js';
import { explanationOf } from './explain.js';
import { metricsOf } from './metrics.js';
import { paged } from './paging.js';

/** Errors that mean the model could not be reached: nothing was run, and the page says so plainly. */
export const MODEL_DOWN = new Set(['model_unavailable', 'model_timeout', 'model_quota', 'model_error']);

/** Shows the answer on the run's card and folds its steps away. */
export function showAnswer(run, answer) {
  const ok = !answer.gave_up && !answer.refused && !answer.cancelled;
  const last = (answer.history || [])[answer.history ? answer.history.length - 1 : 0] || {};
  const modelDown = answer.gave_up && MODEL_DOWN.has(last.error_type);
  run.setState(answer.clarification && ok ? 'Needs a choice' : ok ? 'Answered' : answer.cancelled ? 'Stopped' : answer.refused ? 'Refused' : modelDown ? 'Model unavailable' : 'Gave up',
    ok ? 'state-ok' : answer.refused || answer.cancelled ? 'state-refused' : 'state-bad');
  if (ok) {
    // The run succeeded: failed attempts fold away, their summary (error type) stays visible.
    run.attempts.forEach(a => { if (a.li.dataset.state === 'bad') a.details.open = false; });
  }
  const section = $('.answer', run.el);
  $('.answer-body', section).replaceChildren(renderAnswer(answer, modelDown, last));
  section.hidden = false;
  $('.steps', run.el).open = false;     // the turn reads as its answer; the steps are one click away
  Thread.answered(answer);
  if (modelDown) showBanner('No language model is reachable, so questions cannot be answered right now. Nothing was run against the database.', 'error');
  else showBanner('', 'info');
  const active = document.activeElement;
  if (!active || active === document.body || active.id === 'ask-button') $('#ans-' + run.n).focus();
}

/** A run that could not start or was lost: the message in place of an answer. */
export function showFailure(run, message) {
  run.setState('Error', 'state-bad');
  const section = $('.answer', run.el);
  $('.answer-body', section).replaceChildren(el('p', 'notice notice-bad', message));
  section.hidden = false;
}

function renderAnswer(a, modelDown, last) {
  const frag = document.createDocumentFragment();
  if (modelDown) {
    const p = el('div', 'notice notice-bad');
    p.append(el('strong', null, 'No language model is reachable.'),
      el('span', null, ' The question could not be turned into SQL (' + last.error_type + ': ' + (last.message || 'no detail') +
        '). Nothing was run against the database. Check that the model server at SQLAGENT_LLM_BASE_URL is up, then ask again.'));
    frag.append(p);
    return frag;
  }
  const text = el('p', 'answer-text' + (a.refused ? ' notice notice-refused' : a.gave_up ? ' notice notice-bad' : ''), a.answer || '');
  frag.append(text);
  if (a.clarification && !a.refused && !a.gave_up) {
    frag.append(readingsView(a));     // the readings are the answer: a choice, not the vote's silent pick
    return frag;
  }
  if (a.sql && !a.refused) {
    frag.append(el('div', 'label', a.gave_up ? 'Last SQL tried' : 'SQL'));
    const pre = el('pre', 'sql final-sql');
    pre.append(el('code', null, a.sql));
    frag.append(pre);
    const explained = a.gave_up ? null : explanationOf(a);
    if (explained) frag.append(explained);
    const metrics = a.gave_up ? null : metricsOf(a);
    if (metrics) frag.append(metrics);
  }
  if (a.sql && a.run_id && !a.cancelled) frag.append(editControl(a));
  const facts = el('ul', 'facts');
  const fact = (k, v) => { const li = el('li'); li.append(el('span', 'k', k), el('span', 'v', v)); facts.append(li); };
  if (!a.refused && !a.gave_up) fact('rows', String(a.row_count ?? 0));
  fact('attempts', String(a.attempts ?? 0));
  fact('time', fmtMs(a.latency_ms));
  if (a.tokens) fact('tokens', String((a.tokens.prompt || 0) + (a.tokens.completion || 0)));
  if (a.cost_usd) fact('cost', '$' + Number(a.cost_usd).toFixed(4));
  if (a.model) fact('model', a.model);
  if ((a.tables_used || []).length) fact('tables', a.tables_used.join(', '));
  frag.append(facts);
  if (a.answer_source === 'verified') {
    frag.prepend(el('p', 'notice notice-ok verified-badge', 'Answered from verified query #' + a.verified_id
      + ' (“' + (a.verified_question || '') + '”) without the model'));
  }
  if (a.run_id && !a.refused && !a.gave_up) frag.append(Thread.feedbackBar(a.run_id, null, a.question));
  if (a.run_id && !a.refused && !a.gave_up && a.sql) frag.append(exportBar({ runId: a.run_id }));
  if (!a.refused && !a.gave_up && a.columns && a.columns.length) {
    if (a.truncated) {
      frag.append(el('p', 'notice notice-warn truncated', 'Truncated: only the first ' + plural(a.row_count, 'row') + ' are shown; the query matched more.'));
    }
    const chart = Charts.pick(a.columns, a.rows || []);
    if (chart) frag.append(chart);
    frag.append(resultTable(a));
  }
  return frag;
}

// The result table ----------------------------------------------------------------------------------

/** The result table of {columns, rows, row_count, truncated}: one page of rows at a time. */
export function resultTable(a) {
  const wrap = el('div', 'table-wrap');
  wrap.tabIndex = 0;
  wrap.setAttribute('role', 'region');
  wrap.setAttribute('aria-label', 'Result table, scrollable');
  const table = el('table', 'result');
  const cap = el('caption', null, 'Result: ' + plural(a.row_count ?? (a.rows || []).length, 'row') + (a.truncated ? ' (truncated)' : ''));
  table.append(cap);
  const thead = el('thead');
  const hr = el('tr');
  const numeric = a.columns.map(c => Charts.isNumber(c.type));
  a.columns.forEach((c, i) => {
    const th = el('th', numeric[i] ? 'num' : null);
    th.scope = 'col';
    th.append(el('span', 'col-name', c.name), el('span', 'col-type', c.type || ''));
    hr.append(th);
  });
  thead.append(hr);
  table.append(thead);
  const tbody = el('tbody');
  const pager = paged(tbody, a.rows || [], row => {
    const tr = el('tr');
    row.forEach((cell, i) => tr.append(cellTd(cell, numeric[i], a.columns[i] && a.columns[i].format)));
    return tr;
  });
  if (!(a.rows || []).length) {
    const tr = el('tr');
    const td = el('td', 'no-rows', 'No rows match.');
    td.colSpan = a.columns.length;
    tr.append(td);
    tbody.append(tr);
  }
  table.append(tbody);
  wrap.append(table);
  if (!pager) return wrap;
  const box = el('div', 'paged-result');
  box.append(wrap, pager);
  return box;
}

function cellTd(cell, numeric, format) {
  if (cell === null || cell === undefined) {
    const td = el('td', 'null' + (numeric ? ' num' : ''));
    td.append(el('span', 'null-mark', 'NULL'));
    td.title = 'NULL (no value)';
    return td;
  }
  if (cell === '') {
    const td = el('td', 'empty' + (numeric ? ' num' : ''));
    td.append(el('span', 'empty-mark', '""'));
    td.title = 'empty string';
    td.setAttribute('aria-label', 'empty string');
    return td;
  }
  const text = typeof cell === 'object' ? JSON.stringify(cell) : displayNumber(cell, format);
  const td = el('td', numeric ? 'num' : null, text);
  if (text !== String(cell)) td.title = String(cell);  // the exact value, as the JSON and the API carry it
  return td;
}

// The server decides each column's format (display.ColumnFormat: quantities and money get separators;
// ids, years and codes stay as stored); this renders it exactly, on the decimal text, never via a float.
function displayNumber(cell, format) {
  const raw = String(cell);
  if (format !== 'number' && format !== 'money') return raw;
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(raw.trim());
  if (!m) return raw;
  let [, sign, whole, frac = ''] = m;
  const places = format === 'money' ? 2 : Math.min(frac.length, 4);
  if (frac.length > places) {
    const digits = (whole + frac.slice(0, places)).split('').map(Number);
    if (Number(frac[places]) >= 5) {
      let i = digits.length - 1;
      while (i >= 0 && digits[i] === 9) { digits[i] = 0; i--; }
      if (i >= 0) digits[i]++; else digits.unshift(1);
    }
    const all = digits.join('');
    whole = all.slice(0, all.length - places);
    frac = all.slice(all.length - places);
  } else {
    frac = frac.padEnd(places, '0');
  }
  if (/^0*$/.test(whole + frac)) sign = '';
  whole = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return sign + whole + (places ? '.' + frac : '');
}
