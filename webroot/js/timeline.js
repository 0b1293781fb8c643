// One run on the page: its card, the timeline of graph steps as events arrive, and its end.
import { $, el, plural, fmtMs } from './dom.js';
import { NODE, END_NODES, label } from './nodes.js';
import { send } from './socket.js';
import { Thread } from './conversation.js';
import { showAnswer, showFailure, MODEL_DOWN } from './answer.js';

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
    if (END_NODES.has(ev.node) && ev.status === 'finished') this.onAnswer(ev.data);
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
      case NODE.SELECT_SCHEMA: return this.schemaStep(ev, d);
      case NODE.GENERATE_SQL: return this.generateStep(ev, d);
      case NODE.INJECT_FAULT: return this.line(this.attempt(ev.attempt), 'info', label(NODE.INJECT_FAULT), d.fault);
      case NODE.VALIDATE_SQL: return this.validateStep(ev, d);
      case NODE.EXECUTE_SQL: return this.executeStep(ev, d);
      case NODE.INSPECT_RESULT: return this.inspectStep(ev, d);
      case NODE.DECIDE: return this.decideStep(ev, d);
      case NODE.PREPARE_REPAIR: return this.repairStep(ev, d);
      case NODE.CANDIDATE: return this.candidateStep(ev, d);
      case NODE.VOTE: return this.line(this.attempt(ev.attempt), 'decision', label(NODE.VOTE),
        d.winner == null ? 'no candidate ran' : 'candidate ' + (d.winner + 1) + ' of ' + d.candidates + ' won'
          + (d.changed ? ' (not the first)' : ''));
      case NODE.CLARIFY:
        if (ev.status !== 'finished') return;
        return this.line(this.attempt(ev.attempt), 'decision', label(NODE.CLARIFY),
          plural(((d.clarification || {}).readings || []).length, 'reading') + ' offered: no majority');
      case NODE.ANSWER:
      case NODE.GIVE_UP:
        if (ev.status === 'started') return;
        return this.endStep(ev, d);
      default:
        return undefined;
    }
  }

  schemaStep(ev, d) {
    if (ev.attempt > 0 && this.attempts.has(ev.attempt)) {
      // Widened retrieval during a repair: shown on the failed attempt's card.
      const card = this.attempt(ev.attempt);
      if (ev.status === 'finished') this.line(card, 'info', 'Schema widened', tableList(d.tables));
      if (ev.status === 'failed') this.line(card, 'bad', 'Schema retrieval failed', d.message);
      return;
    }
    let li = this.schemaLi;
    if (!li) {
      li = this.schemaLi = document.createElement('li');
      li.className = 'step-card schema-card';
      li.innerHTML = '<div class="step-head"><span class="dot"></span><strong></strong><span class="step-status"></span></div><div class="step-detail"></div>';
      $('strong', li).textContent = label(NODE.SELECT_SCHEMA);
      this.timeline.append(li);
    }
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

  line(a, kind, title, text, extra) {
    const li = document.createElement('li');
    li.className = 'line line-' + kind;
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
      this.line(a, 'ok', 'Checked by the gate', d.static_check === 'fallback' ? 'parsed by PostgreSQL' : 'parsed, read-only, row cap applied');
    } else if (ev.status === 'failed') {
      this.failAttempt(a, d.error_type, d.message, d.hint, 'Refused by the gate');
    }
  }

  executeStep(ev, d) {
    const a = this.attempt(ev.attempt);
    if (ev.status === 'started') this.mark(a, 'running', 'running…');
    if (ev.status === 'finished') {
      this.mark(a, 'running', 'ran');
      this.line(a, 'ok', 'Ran', plural(d.row_count, 'row') + (d.truncated ? ' (truncated)' : '') + ' in ' + (d.elapsed_ms ?? '?') + ' ms');
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
      this.line(a, 'decision', label(NODE.DECIDE), 'repair (' + plural(d.attempts_left, 'attempt') + ' left)');
    } else if (d.next === 'give_up') {
      if (a.li.dataset.state !== 'bad') this.failAttempt(a, d.error_type, '');
      this.line(a, 'decision', label(NODE.DECIDE), d.error_type && MODEL_DOWN.has(d.error_type) ? 'stop: the model cannot be reached' : 'give up');
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
    const li = this.line(a, 'repair', label(NODE.PREPARE_REPAIR), d.strategy || 'regenerate');
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
    this.attempts.forEach(a => this.stopReading(a));
    const li = document.createElement('li');
    li.className = 'step-card end-card';
    const ok = !d.gave_up && !d.refused;
    li.dataset.state = ok ? 'ok' : d.refused ? 'refused' : 'bad';
    li.innerHTML = '<div class="step-head"><span class="dot"></span><strong></strong><span class="step-status"></span></div>';
    $('strong', li).textContent = ok ? 'Answer' : d.refused ? 'Refused' : 'Gave up';
    $('.step-status', li).textContent = ok
      ? 'after ' + plural(d.attempts, 'attempt') + ', ' + fmtMs(d.latency_ms)
      : d.refused ? 'nothing was run that could change data' : 'after ' + plural(d.attempts, 'attempt');
    this.timeline.append(li);
  }

  // The end ---------------------------------------------------------------------------------------

  onAnswer(answer) {
    if (this.ended) return;
    this.ended = true;
    clearTimeout(this.catchUpTimer);
    this.attempts.forEach(a => this.stopReading(a));
    this.stop.hidden = true;
    showAnswer(this, answer);
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
