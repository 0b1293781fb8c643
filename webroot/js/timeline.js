// One run on the page: its card, the timeline of graph steps as events arrive, and its end. Which nodes exist, their
// labels and kinds and which of them end a run come from the served graph (graph.js); a few nodes have a drawing of
// their own, chosen by the name the event carries, and every other step is drawn as a card of its label.
import { $, el, plural, fmtMs } from './dom.js';
import { label, kind as kindOf, endsRun, nextSteps } from './graph.js';
import { send } from './socket.js';
import { Thread } from './conversation.js';
import { showAnswer, showFailure, MODEL_DOWN } from './answer.js';
import { attachExplanation } from './explain.js';

let runCounter = 0;

export class Run {
  constructor(question, mode) {
    this.n = ++runCounter;
    this.question = question;
    this.mode = mode;
    this.id = null;
    this.lastSeq = 0;
    this.ended = false;
    this.attempts = new Map();
    this.catchUpTimer = null;
    this.render();
  }

  render() {
    $('#empty-state').hidden = true;
    const card = document.createElement('details');
    card.className = 'run card';
    card.open = true;
    card.innerHTML = `
      <summary class="run-head">
        <span class="run-title"></span>
        <span class="badges"><span class="badge badge-mode"></span><span class="badge run-state state-running">Running</span></span>
      </summary>
      <div class="run-body">
        <button type="button" class="stop-button" id="stop-${this.n}" disabled>Stop</button>
        <details class="steps" open>
          <summary class="section-title" id="tl-${this.n}">Timeline</summary>
          <ol class="timeline" aria-labelledby="tl-${this.n}" aria-live="polite" aria-relevant="additions"></ol>
        </details>
        <section class="answer" hidden aria-labelledby="ans-${this.n}">
          <h3 class="section-title" id="ans-${this.n}" tabindex="-1">Answer</h3>
          <div class="answer-body"></div>
        </section>
      </div>`;
    $('.run-title', card).textContent = this.question;
    $('.badge-mode', card).textContent = this.mode === 'baseline' ? 'single-shot baseline' : 'agent';
    this.el = card;
    this.timeline = $('.timeline', card);
    // Stop: cancels the run on the server (its model call and its statement too); the run's own events end it.
    this.stop = $('.stop-button', card);
    this.stop.addEventListener('click', () => {
      if (!this.id || this.ended) return;
      this.stop.disabled = true;
      this.stop.textContent = 'Stopping…';
      send({ type: 'cancel', run_id: this.id });
    });
    Thread.add(card);
  }

  setId(id) {
    this.id = id;
    this.el.dataset.runId = id;
    this.stop.disabled = false;
  }

  /** A badge on the run's head: an edited query, a chosen reading. */
  badge(text, title) {
    const b = el('span', 'badge badge-desk', text);
    if (title) b.title = title;
    $('.badges', this.el).prepend(b);
  }

  setState(text, cls) {
    const s = $('.run-state', this.el);
    s.textContent = text;
    s.className = 'badge run-state ' + cls;
  }

  onEvent(ev) {
    if (ev.seq <= this.lastSeq) return;                 // already shown (replay overlap)
    if (ev.seq > this.lastSeq + 1) {                     // a gap: fetch what was missed, then go on
      send({ type: 'replay', run_id: this.id, after_seq: this.lastSeq });
      return;
    }
    this.lastSeq = ev.seq;
    try { this.apply(ev); } catch (e) { console.error('cannot show event', ev, e); }
    if (endsRun(ev.node) && ev.status === 'finished') this.onAnswer(ev.data);
  }

  onReplayEnd() { /* events came through onEvent */ }

  catchUp() {
    if (!this.id || this.ended) return;
    send({ type: 'replay', run_id: this.id, after_seq: this.lastSeq });
    clearTimeout(this.catchUpTimer);
    // This socket is not subscribed to the old run: poll until it ends.
    this.catchUpTimer = setTimeout(() => this.catchUp(), 1500);
  }

  // Timeline --------------------------------------------------------------------------------------

  apply(ev) {
    const d = ev.data || {};
    switch (ev.node) {
      case 'lookup_verified': return this.lookupStep(ev, d);
      case 'select_schema': return this.schemaStep(ev, d);
      case 'generate_sql': return this.generateStep(ev, d);
      case 'inject_fault': return this.line(this.attempt(ev.attempt), 'info', label(ev.node), d.fault, null, ev.node);
      case 'validate_sql': return this.validateStep(ev, d);
      case 'execute_sql': return this.executeStep(ev, d);
      case 'inspect_result': return this.inspectStep(ev, d);
      case 'decide': return this.decideStep(ev, d);
      case 'prepare_repair': return this.repairStep(ev, d);
      case 'candidate': return this.candidateStep(ev, d);
      case 'vote': return this.line(this.attempt(ev.attempt), 'decision', label(ev.node),
        d.winner == null ? 'no candidate ran' : 'candidate ' + (d.winner + 1) + ' of ' + d.candidates + ' won'
          + (d.changed ? ' (not the first)' : ''), null, ev.node);
      case 'clarify':
        if (ev.status !== 'finished') return undefined;
        return this.line(this.attempt(ev.attempt), 'decision', label(ev.node),
          plural(((d.clarification || {}).readings || []).length, 'reading') + ' offered: no majority', null, ev.node);
      case 'answer':
      case 'give_up':
        return ev.status === 'started' ? undefined : this.endStep(ev, d);
      case 'explain_sql': return this.explained(d);
      default:
        if (endsRun(ev.node)) return ev.status === 'started' ? undefined : this.endStep(ev, d);
        return this.genericStep(ev, d);
    }
  }

  /** A card at the top of the timeline for a step outside the attempts: its label, its kind, its state. */
  stepCard(node, cls) {
    const li = document.createElement('li');
    li.className = 'step-card ' + cls;
    li.dataset.node = node;
    if (kindOf(node)) li.dataset.kind = kindOf(node);
    li.innerHTML = '<div class="step-head"><span class="dot"></span><strong></strong><span class="step-status"></span></div><div class="step-detail"></div>';
    $('strong', li).textContent = label(node);
    const next = nextSteps(node);
    if (next) $('.step-head', li).title = 'Next: ' + next;
    this.timeline.append(li);
    return li;
  }

  /** The verified queries closest to the question; one close enough is run without the model. */
  lookupStep(ev, d) {
    const li = this.lookupLi || (this.lookupLi = this.stepCard(ev.node, 'lookup-card'));
    const status = $('.step-status', li);
    const detail = $('.step-detail', li);
    if (ev.status === 'started') { status.textContent = 'comparing with the verified queries…'; li.dataset.state = 'running'; }
    if (ev.status === 'finished') {
      li.dataset.state = 'ok';
      const matches = d.matches || [];
      const direct = matches.find(m => m.verified_id === d.direct);
      status.textContent = direct ? 'verified query #' + direct.verified_id + ' is close enough: run first, without the model'
        : plural(d.candidates, 'verified query') + ' compared, none close enough to answer';
      const list = el('ul', 'verified-matches');
      for (const m of matches) {
        const item = el('li', 'verified-match' + (m === direct ? ' direct' : ''));
        item.append(el('span', 'score', typeof m.score === 'number' ? m.score.toFixed(2) : ''),
          el('span', null, '#' + m.verified_id + ' ' + (m.question || '')));
        list.append(item);
      }
      detail.replaceChildren(list);
    }
    if (ev.status === 'failed') {
      li.dataset.state = 'bad';
      status.textContent = 'failed';
      detail.textContent = d.message || '';
    }
  }

  /** A step with no drawing of its own: on its attempt's card when it belongs to one, else a card of its own. */
  genericStep(ev, d) {
    if (ev.status === 'progress') return;
    const detail = ev.status === 'failed' ? [d.error_type, d.message].filter(Boolean).join(': ') : '';
    if (ev.attempt > 0 && this.attempts.has(ev.attempt)) {
      if (ev.status === 'started') return;
      this.line(this.attempts.get(ev.attempt), ev.status === 'failed' ? 'bad' : 'info', label(ev.node), detail, null, ev.node);
      return;
    }
    this.steps = this.steps || new Map();
    let li = this.steps.get(ev.node);
    if (!li || li.dataset.state !== 'running') this.steps.set(ev.node, li = this.stepCard(ev.node, 'node-card'));
    li.dataset.state = ev.status === 'started' ? 'running' : ev.status === 'failed' ? 'bad' : 'ok';
    $('.step-status', li).textContent = ev.status === 'started' ? 'running…' : ev.status === 'failed' ? 'failed' : 'done';
    $('.step-detail', li).textContent = detail;
  }

  schemaStep(ev, d) {
    if (ev.attempt > 0 && this.attempts.has(ev.attempt)) {
      // Widened retrieval during a repair: shown on the failed attempt's card.
      const card = this.attempt(ev.attempt);
      if (ev.status === 'finished') this.line(card, 'info', label(ev.node), 'widened: ' + tableList(d.tables), null, ev.node);
      if (ev.status === 'failed') this.line(card, 'bad', 'Schema retrieval failed', d.message);
      return;
    }
    const li = this.schemaLi || (this.schemaLi = this.stepCard(ev.node, 'schema-card'));
    const status = $('.step-status', li);
    const detail = $('.step-detail', li);
    if (ev.status === 'started') { status.textContent = 'choosing tables…'; li.dataset.state = 'running'; }
    if (ev.status === 'finished') {
      status.textContent = (d.tables || []).length + ' tables';
      li.dataset.state = 'ok';
      detail.replaceChildren(tableChips(d.tables));
      // Stored values the question names, in the form the database stores them.
      for (const m of d.value_matches || []) {
        const v = el('div', 'value-match', m.text);
        detail.append(v);
      }
    }
    if (ev.status === 'failed') {
      status.textContent = 'failed';
      li.dataset.state = 'bad';
      detail.textContent = d.message || 'schema retrieval failed';
    }
  }

  attempt(n) {
    let a = this.attempts.get(n);
    if (a) return a;
    const li = document.createElement('li');
    li.className = 'step-card attempt';
    li.dataset.attempt = String(n);
    li.dataset.state = 'running';
    li.innerHTML = `
      <details open>
        <summary class="step-head"><span class="dot"></span><strong>Attempt ${n}</strong>
          <span class="attempt-status">generating…</span><span class="attempt-repair" hidden></span>
          <span class="attempt-msg" hidden></span></summary>
        <div class="attempt-body">
          <div class="stream-wrap" hidden><div class="label">Model output <span class="muted">(streaming)</span></div>
            <pre class="stream" aria-live="off"></pre></div>
          <div class="sql-wrap" hidden><div class="label">SQL</div><pre class="sql"><code></code></pre></div>
          <ul class="lines"></ul>
        </div>
      </details>`;
    this.timeline.append(li);
    a = { li, n, status: $('.attempt-status', li), lines: $('.lines', li), details: $('details', li) };
    this.attempts.set(n, a);
    return a;
  }

  /**
   * A model on a CPU reads a long prompt for seconds before its first word: from 2 s on, the attempt says so and
   * counts, until the first word (or the end) arrives.
   */
  startReading(a) {
    this.stopReading(a);
    const since = Date.now();
    a.reading = setInterval(() => {
      const s = Math.floor((Date.now() - since) / 1000);
      if (s >= 2) this.mark(a, 'running', 'the model is reading the prompt… ' + s + ' s');
    }, 500);
  }

  stopReading(a) {
    if (a.reading) clearInterval(a.reading);
    a.reading = null;
  }

  mark(a, state, text) {
    a.li.dataset.state = state;
    a.status.textContent = text;
  }

  line(a, kind, title, text, extra, node) {
    const li = document.createElement('li');
    li.className = 'line line-' + kind;
    if (node) li.dataset.node = node;
    const t = el('span', 'line-title', title);
    li.append(t);
    if (text) {
      const s = el('span', 'line-text', text);
      li.append(s);
    }
    if (extra) li.append(extra);
    a.lines.append(li);
    return li;
  }

  showSql(a, sql) {
    if (!sql) return;
    const wrap = $('.sql-wrap', a.li);
    $('code', wrap).textContent = sql;
    wrap.hidden = false;
  }

  generateStep(ev, d) {
    const a = this.attempt(ev.attempt);
    const streamWrap = $('.stream-wrap', a.li);
    if (ev.status !== 'started') this.stopReading(a);
    if (ev.status === 'started') {
      const text = d.repair ? 'regenerating with the error…' : 'generating…';
      this.mark(a, 'running', text);
      this.startReading(a);
    } else if (ev.status === 'progress') {
      if (a.status.textContent.startsWith('the model is reading')) this.mark(a, 'running', 'generating…');
      streamWrap.hidden = false;
      $('.stream', a.li).textContent += d.delta || '';
    } else if (ev.status === 'finished' && Array.isArray(d.candidates)) {
      streamWrap.hidden = true;
      this.line(a, 'info', d.candidates.length + ' candidates', 'each runs through the gate; their results vote');
      this.mark(a, 'running', 'checking candidates…');
    } else if (ev.status === 'finished') {
      streamWrap.hidden = true;
      this.showSql(a, d.sql);
      if (!d.sql) this.line(a, 'info', 'No SQL', d.explanation || 'the model declined: the schema cannot answer this');
      this.mark(a, 'running', 'checking…');
      a.tokens = (d.prompt_tokens || 0) + (d.completion_tokens || 0);
      a.model = d.model;
    } else if (ev.status === 'failed') {
      streamWrap.hidden = true;
      this.failAttempt(a, d.error_type, d.message);
    }
  }

  candidateStep(ev, d) {
    if (ev.status === 'started') return;
    const a = this.attempt(ev.attempt);
    const sql = document.createElement('code');
    sql.textContent = d.sql || '';
    if (ev.status === 'finished') {
      this.line(a, 'ok', 'Candidate ' + (d.index + 1), d.row_count + ' rows, result ' + d.fingerprint, sql);
    } else {
      this.line(a, 'bad', 'Candidate ' + (d.index + 1) + ' failed', d.error_type + ': ' + d.message, sql);
    }
  }

  validateStep(ev, d) {
    const a = this.attempt(ev.attempt);
    if (ev.status === 'finished') {
      this.showSql(a, d.sql);
      this.line(a, 'ok', label(ev.node), d.static_check === 'fallback' ? 'passed: parsed by PostgreSQL' : 'passed: parsed, read-only, row cap applied', null, ev.node);
    } else if (ev.status === 'failed') {
      this.failAttempt(a, d.error_type, d.message, d.hint, 'Refused by the gate');
    }
  }

  executeStep(ev, d) {
    const a = this.attempt(ev.attempt);
    if (ev.status === 'started') this.mark(a, 'running', 'running…');
    if (ev.status === 'finished') {
      this.mark(a, 'running', 'ran');
      this.line(a, 'ok', label(ev.node), plural(d.row_count, 'row') + (d.truncated ? ' (truncated)' : '') + ' in ' + (d.elapsed_ms ?? '?') + ' ms', null, ev.node);
    } else if (ev.status === 'failed') {
      this.failAttempt(a, d.error_type, d.message, d.hint, 'Database error');
    }
  }

  inspectStep(ev, d) {
    const a = this.attempt(ev.attempt);
    if (ev.status === 'started' && d.probe) this.line(a, 'info', 'Empty result', 'probing whether a text filter was too strict…');
    if (ev.status === 'finished' && d.verdict === 'filter_too_strict') {
      this.failAttempt(a, 'empty_filter', 'no rows, but ' + plural(d.probe_rows, 'row') + ' match when ' + (d.filters || []).join(', ') + ' is compared case- and space-insensitively');
    } else if (ev.status === 'finished' && d.verdict === 'empty_confirmed') {
      this.line(a, 'info', 'Empty result confirmed', 'nothing matches, even with relaxed text filters');
    }
  }

  decideStep(ev, d) {
    const a = this.attempt(ev.attempt);
    a.next = d.next;
    if (d.next === 'answer') {
      this.mark(a, 'ok', 'succeeded');
    } else if (d.next === 'repair') {
      if (a.li.dataset.state !== 'bad') this.failAttempt(a, d.error_type, '');
      this.line(a, 'decision', label(ev.node), 'repair (' + plural(d.attempts_left, 'attempt') + ' left)', null, ev.node);
    } else if (d.next === 'give_up') {
      if (a.li.dataset.state !== 'bad') this.failAttempt(a, d.error_type, '');
      this.line(a, 'decision', label(ev.node), d.error_type && MODEL_DOWN.has(d.error_type) ? 'stop: the model cannot be reached' : 'give up', null, ev.node);
    } else if (d.next === 'refuse') {
      this.mark(a, 'refused', 'refused');
    }
  }

  repairStep(ev, d) {
    const a = this.attempt(ev.attempt);
    if (ev.status !== 'finished') return;
    const tag = $('.attempt-repair', a.li);
    tag.textContent = '→ repair: ' + (d.strategy || 'regenerate');
    tag.hidden = false;
    const li = this.line(a, 'repair', label(ev.node), d.strategy || 'regenerate', null, ev.node);
    li.classList.add('repair');
    if (d.instruction) {
      const p = el('span', 'line-sub', d.instruction);
      li.append(p);
    }
  }

  failAttempt(a, type, message, hint, title) {
    this.mark(a, 'bad', 'failed' + (type ? ' · ' + type : ''));
    if (a.failedShown) return;
    a.failedShown = true;
    const badge = el('span', 'err-type', type || 'error');
    const li = this.line(a, 'bad', title || 'Failed', null, badge);
    if (message) {
      const short = $('.attempt-msg', a.li);
      short.textContent = message;
      short.hidden = false;
      const m = el('span', 'line-text err-message', message);
      li.append(m);
    }
    if (hint) {
      const h = el('span', 'line-sub', 'Hint: ' + hint);
      li.append(h);
    }
  }

  endStep(ev, d) {
    const ok = !d.gave_up && !d.refused && !d.cancelled;
    this.attempts.forEach(a => {
      this.stopReading(a);
      // An attempt no decision closed (a verified query's, a stopped one) ends with the run.
      if (a.li.dataset.state === 'running') this.mark(a, ok ? 'ok' : 'bad', ok ? 'succeeded' : d.cancelled ? 'stopped' : 'failed');
    });
    const li = this.stepCard(ev.node, 'end-card');
    li.dataset.state = ok ? 'ok' : d.refused || d.cancelled ? 'refused' : 'bad';
    $('.step-detail', li).remove();
    $('strong', li).textContent = ok ? 'Answer' : d.refused ? 'Refused' : d.cancelled ? 'Stopped' : 'Gave up';
    $('.step-status', li).textContent = ok
      ? 'after ' + plural(d.attempts, 'attempt') + ', ' + fmtMs(d.latency_ms)
      : d.refused ? 'nothing was run that could change data' : 'after ' + plural(d.attempts, 'attempt');
  }

  // The end ---------------------------------------------------------------------------------------

  onAnswer(answer) {
    if (this.ended) return;
    this.ended = true;
    clearTimeout(this.catchUpTimer);
    this.attempts.forEach(a => this.stopReading(a));
    this.stop.hidden = true;
    showAnswer(this, answer);
    if (this.explanation) attachExplanation(this.el, this.explanation);
  }

  /** What the answer's SQL does, in words: it comes after the answer (explain_sql), and goes under its SQL. */
  explained(d) {
    if (!d.explanation) return;
    this.explanation = d.explanation;
    if (this.ended) attachExplanation(this.el, d.explanation);
  }

  failed(message) {
    if (this.ended) return;
    this.ended = true;
    this.stop.hidden = true;
    showFailure(this, message);
  }
}

function tableChips(tables) {
  const wrap = el('div', 'chips');
  (tables || []).forEach(t => {
    const c = el('span', 'chip');
    c.append(el('span', null, t.name));
    if (typeof t.score === 'number') c.append(el('span', 'score', t.score.toFixed(2)));
    // Why a table is there beyond its similarity: a stored value the question names, a join path, the notes.
    const why = [t.value_link, t.via, t.ranking].filter(Boolean).join('; ');
    if (why) c.title = why;
    wrap.append(c);
  });
  return wrap;
}

function tableList(tables) {
  return (tables || []).map(t => t.name).join(', ');
}
