// sql-agent page: asks over the /ws WebSocket and draws each run as it happens. No build step, no library.
'use strict';

(function () {
  const $ = (sel, root) => (root || document).querySelector(sel);
  const MODEL_DOWN = new Set(['model_unavailable', 'model_timeout', 'model_quota', 'model_error']);
  const TOKEN_KEY = 'sqlagent.apiToken';

  // --- access (API token, when the service requires one) -------------------------------------------

  let token = sessionStorage.getItem(TOKEN_KEY) || '';
  let tokenWaiters = null;

  function askForToken(message) {
    if (tokenWaiters) return new Promise(r => tokenWaiters.push(r));
    tokenWaiters = [];
    const dialog = $('#token-dialog');
    const err = $('#token-error');
    err.hidden = !message;
    err.textContent = message || '';
    return new Promise(resolve => {
      tokenWaiters.push(resolve);
      $('#token-form').onsubmit = () => {
        token = $('#token-input').value.trim();
        sessionStorage.setItem(TOKEN_KEY, token);
        const waiters = tokenWaiters;
        tokenWaiters = null;
        waiters.forEach(w => w());
      };
      dialog.showModal();
      $('#token-input').focus();
    });
  }

  async function api(path) {
    for (let tries = 0; tries < 4; tries++) {
      const headers = { Accept: 'application/json' };
      if (token) headers.Authorization = 'Bearer ' + token;
      const res = await fetch(path, { headers });
      if (res.status === 401 || res.status === 403 && res.headers.get('WWW-Authenticate')) {
        await askForToken(token ? 'That token was not accepted; try again.' : '');
        continue;
      }
      return res;
    }
    throw new Error('not authorised');
  }

  // --- the WebSocket -------------------------------------------------------------------------------

  let ws = null;
  let wsOpen = false;
  let retryDelay = 500;
  const queue = [];               // messages sent while (re)connecting
  const runs = new Map();         // run_id -> Run
  let pendingAsks = [];           // Runs waiting for their "accepted" (matched in order)

  function wsUrl() {
    const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
    return scheme + '//' + location.host + '/ws' + (token ? '?access_token=' + encodeURIComponent(token) : '');
  }

  function connect() {
    setConnection('connecting', 'Connecting…');
    const socket = new WebSocket(wsUrl());
    ws = socket;
    socket.onopen = () => {
      wsOpen = true;
      retryDelay = 500;
      setConnection('open', 'Live');
      while (queue.length) socket.send(queue.shift());
      // Catch up on runs that were in progress when the connection dropped.
      runs.forEach(run => { if (!run.ended) run.catchUp(); });
    };
    socket.onmessage = e => {
      let msg;
      try { msg = JSON.parse(e.data); } catch (_) { return; }
      onMessage(msg);
    };
    socket.onclose = async e => {
      const wasOpen = wsOpen;
      wsOpen = false;
      if (ws !== socket) return;
      if (!wasOpen) {
        // The upgrade was refused: maybe a token is needed (the WebSocket API hides the status).
        try {
          const probe = await api('/api/runs/00000000-probe/events');
          if (probe.status === 401) return;
        } catch (_) { /* api() asked for a token; reconnect below */ }
      }
      setConnection('closed', e.code === 1013 ? 'Too slow — reconnecting…' : 'Reconnecting…');
      pendingAsks.forEach(run => run.failed('the connection dropped before the run started; ask again'));
      pendingAsks = [];
      setTimeout(connect, retryDelay);
      retryDelay = Math.min(retryDelay * 2, 8000);
    };
  }

  function send(obj) {
    const text = JSON.stringify(obj);
    if (wsOpen) ws.send(text); else queue.push(text);
  }

  function onMessage(msg) {
    switch (msg.type) {
      case 'accepted': {
        const run = pendingAsks.shift();
        if (run) { run.setId(msg.run_id); runs.set(msg.run_id, run); }
        break;
      }
      case 'event': {
        const run = runs.get(msg.run_id);
        if (run) run.onEvent(msg);
        break;
      }
      case 'answer': {
        const run = runs.get(msg.run_id);
        if (run) run.onAnswer(msg);
        break;
      }
      case 'replay_end': {
        const run = runs.get(msg.run_id);
        if (run) run.onReplayEnd();
        break;
      }
      case 'error': {
        const run = msg.run_id ? runs.get(msg.run_id) : pendingAsks.shift();
        if (run) run.failed(msg.message); else showBanner(msg.message, 'error');
        break;
      }
      default:
        break;
    }
  }

  function setConnection(state, text) {
    const el = $('#connection');
    el.className = 'conn conn-' + state;
    el.textContent = text;
  }

  function showBanner(text, kind) {
    const b = $('#banner');
    b.textContent = text;
    b.className = 'banner banner-' + (kind || 'info');
    b.hidden = !text;
  }

  // --- asking --------------------------------------------------------------------------------------

  const form = $('#ask-form');
  const box = $('#question');

  box.addEventListener('keydown', e => {
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      form.requestSubmit();
    }
  });

  form.addEventListener('submit', e => {
    e.preventDefault();
    const question = box.value.trim();
    const err = $('#ask-error');
    if (!question) {
      err.textContent = 'Type a question first.';
      err.hidden = false;
      box.setAttribute('aria-invalid', 'true');
      box.focus();
      return;
    }
    err.hidden = true;
    box.removeAttribute('aria-invalid');
    const mode = form.querySelector('input[name=mode]:checked').value;
    const run = new Run(question, mode);
    pendingAsks.push(run);
    send({ type: 'ask', question, mode, conversation_id: Thread.id || undefined });
    asked.push(question);
    recall = asked.length;
    box.value = '';
  });

  // ArrowUp / ArrowDown in an empty (or recalled) box walk through the questions asked in this tab.
  const asked = [];
  let recall = 0;
  box.addEventListener('keydown', e => {
    if ((e.key !== 'ArrowUp' && e.key !== 'ArrowDown') || !asked.length) return;
    if (box.value && box.value !== asked[recall]) return;
    e.preventDefault();
    recall = Math.max(0, Math.min(asked.length, recall + (e.key === 'ArrowUp' ? -1 : 1)));
    box.value = asked[recall] || '';
  });

  // --- one run on the page -------------------------------------------------------------------------

  let runCounter = 0;

  class Run {
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
      const el = document.createElement('details');
      el.className = 'run card';
      el.open = true;
      el.innerHTML = `
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
      $('.run-title', el).textContent = this.question;
      $('.badge-mode', el).textContent = this.mode === 'baseline' ? 'single-shot baseline' : 'agent';
      this.el = el;
      this.timeline = $('.timeline', el);
      // Stop: cancels the run on the server (its model call and its statement too); the run's own events end it.
      this.stop = $('.stop-button', el);
      this.stop.addEventListener('click', () => {
        if (!this.id || this.ended) return;
        this.stop.disabled = true;
        this.stop.textContent = 'Stopping…';
        send({ type: 'cancel', run_id: this.id });
      });
      Thread.add(el);
    }

    setId(id) {
      this.id = id;
      this.el.dataset.runId = id;
      this.stop.disabled = false;
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
      if ((ev.node === 'answer' || ev.node === 'give_up' || ev.node === 'cancelled') && ev.status === 'finished') this.onAnswer(ev.data);
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
        case 'select_schema': return this.schemaStep(ev, d);
        case 'generate_sql': return this.generateStep(ev, d);
        case 'inject_fault': return this.line(this.attempt(ev.attempt), 'info', 'Fault injected (evaluation)', d.fault);
        case 'validate_sql': return this.validateStep(ev, d);
        case 'execute_sql': return this.executeStep(ev, d);
        case 'inspect_result': return this.inspectStep(ev, d);
        case 'decide': return this.decideStep(ev, d);
        case 'prepare_repair': return this.repairStep(ev, d);
        case 'candidate': return this.candidateStep(ev, d);
        case 'vote': return this.line(this.attempt(ev.attempt), 'decision', 'Vote',
          d.winner == null ? 'no candidate ran' : 'candidate ' + (d.winner + 1) + ' of ' + d.candidates + ' won'
            + (d.changed ? ' (not the first)' : ''));
        case 'answer':
        case 'give_up':
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
        li.innerHTML = '<div class="step-head"><span class="dot"></span><strong>Schema selection</strong><span class="step-status"></span></div><div class="step-detail"></div>';
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
          const v = document.createElement('div');
          v.className = 'value-match';
          v.textContent = m.text;
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

    mark(a, state, text) {
      a.li.dataset.state = state;
      a.status.textContent = text;
    }

    line(a, kind, title, text, extra) {
      const li = document.createElement('li');
      li.className = 'line line-' + kind;
      const t = document.createElement('span');
      t.className = 'line-title';
      t.textContent = title;
      li.append(t);
      if (text) {
        const s = document.createElement('span');
        s.className = 'line-text';
        s.textContent = text;
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
      if (ev.status === 'started') {
        this.mark(a, 'running', d.repair ? 'regenerating with the error…' : 'generating…');
      } else if (ev.status === 'progress') {
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
        this.line(a, 'decision', 'Decision', 'repair (' + plural(d.attempts_left, 'attempt') + ' left)');
      } else if (d.next === 'give_up') {
        if (a.li.dataset.state !== 'bad') this.failAttempt(a, d.error_type, '');
        this.line(a, 'decision', 'Decision', d.error_type && MODEL_DOWN.has(d.error_type) ? 'stop: the model cannot be reached' : 'give up');
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
      const li = this.line(a, 'repair', 'Repair strategy', d.strategy || 'regenerate');
      li.classList.add('repair');
      if (d.instruction) {
        const p = document.createElement('span');
        p.className = 'line-sub';
        p.textContent = d.instruction;
        li.append(p);
      }
    }

    failAttempt(a, type, message, hint, title) {
      this.mark(a, 'bad', 'failed' + (type ? ' · ' + type : ''));
      if (a.failedShown) return;
      a.failedShown = true;
      const badge = document.createElement('span');
      badge.className = 'err-type';
      badge.textContent = type || 'error';
      const li = this.line(a, 'bad', title || 'Failed', null, badge);
      if (message) {
        const short = $('.attempt-msg', a.li);
        short.textContent = message;
        short.hidden = false;
        const m = document.createElement('span');
        m.className = 'line-text err-message';
        m.textContent = message;
        li.append(m);
      }
      if (hint) {
        const h = document.createElement('span');
        h.className = 'line-sub';
        h.textContent = 'Hint: ' + hint;
        li.append(h);
      }
    }

    endStep(ev, d) {
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

    // Answer ----------------------------------------------------------------------------------------

    onAnswer(answer) {
      if (this.ended) return;
      this.ended = true;
      clearTimeout(this.catchUpTimer);
      this.stop.hidden = true;
      const ok = !answer.gave_up && !answer.refused && !answer.cancelled;
      const last = (answer.history || [])[answer.history ? answer.history.length - 1 : 0] || {};
      const modelDown = answer.gave_up && MODEL_DOWN.has(last.error_type);
      this.setState(ok ? 'Answered' : answer.cancelled ? 'Stopped' : answer.refused ? 'Refused' : modelDown ? 'Model unavailable' : 'Gave up',
        ok ? 'state-ok' : answer.refused || answer.cancelled ? 'state-refused' : 'state-bad');
      if (ok) {
        // The run succeeded: failed attempts fold away, their summary (error type) stays visible.
        this.attempts.forEach(a => { if (a.li.dataset.state === 'bad') a.details.open = false; });
      }
      const section = $('.answer', this.el);
      const body = $('.answer-body', section);
      body.replaceChildren(renderAnswer(answer, modelDown, last));
      section.hidden = false;
      $('.steps', this.el).open = false;     // the turn reads as its answer; the steps are one click away
      Thread.answered(answer);
      if (modelDown) showBanner('No language model is reachable, so questions cannot be answered right now. Nothing was run against the database.', 'error');
      else showBanner('', 'info');
      const active = document.activeElement;
      if (!active || active === document.body || active.id === 'ask-button') $('#ans-' + this.n).focus();
    }

    failed(message) {
      if (this.ended) return;
      this.ended = true;
      this.stop.hidden = true;
      this.setState('Error', 'state-bad');
      const section = $('.answer', this.el);
      const p = document.createElement('p');
      p.className = 'notice notice-bad';
      p.textContent = message;
      $('.answer-body', section).replaceChildren(p);
      section.hidden = false;
    }
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
    if (a.sql && !a.refused) {
      frag.append(el('div', 'label', a.gave_up ? 'Last SQL tried' : 'SQL'));
      const pre = el('pre', 'sql final-sql');
      pre.append(el('code', null, a.sql));
      frag.append(pre);
    }
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

  // --- result table ---------------------------------------------------------------------------------

  function resultTable(a) {
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
    (a.rows || []).forEach(row => {
      const tr = el('tr');
      row.forEach((cell, i) => tr.append(cellTd(cell, numeric[i], a.columns[i] && a.columns[i].format)));
      tbody.append(tr);
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
    return wrap;
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

  // --- charts: chosen from column types, never by the model ------------------------------------------

  const Charts = {
    isNumber(t) {
      return /^(int2|int4|int8|smallint|integer|bigint|numeric|decimal|real|float4|float8|double precision|double|money|oid)(\(.*\))?$/i.test(String(t || '').trim());
    },
    isDate(t) {
      return /^(date|timestamp|timestamptz|timestamp with(out)? time zone)(\(.*\))?$/i.test(String(t || '').trim());
    },
    isCategory(t) {
      return /^(text|varchar|bpchar|char|character|character varying|name|citext|bool|boolean|uuid)(\(.*\))?$/i.test(String(t || '').trim());
    },

    /** A category and a number → bars; a date and a number → a line; anything else → no chart. */
    pick(columns, rows) {
      if (columns.length !== 2 || rows.length < 2) return null;
      const [a, b] = columns;
      let keyIdx, valIdx;
      if (this.isNumber(b.type) && !this.isNumber(a.type)) { keyIdx = 0; valIdx = 1; }
      else if (this.isNumber(a.type) && !this.isNumber(b.type)) { keyIdx = 1; valIdx = 0; }
      else return null;
      const keyType = columns[keyIdx].type;
      const points = rows
        .filter(r => r[keyIdx] !== null && r[valIdx] !== null && isFinite(Number(r[valIdx])))
        .map(r => ({ key: String(r[keyIdx]), value: Number(r[valIdx]) }));
      if (points.length < 2) return null;
      if (this.isDate(keyType)) return this.line(points, columns[keyIdx].name, columns[valIdx].name);
      if (this.isCategory(keyType) && points.length <= 40) return this.bars(points, columns[keyIdx].name, columns[valIdx].name);
      return null;
    },

    frame(title) {
      const fig = el('figure', 'chart');
      fig.append(el('figcaption', null, title));
      return fig;
    },

    bars(points, keyName, valName) {
      const fig = this.frame(valName + ' by ' + keyName);
      const W = 640, rowH = 24, left = 170, right = 70, top = 8;
      const H = top + points.length * rowH + 8;
      const max = Math.max(0, ...points.map(p => p.value));
      const min = Math.min(0, ...points.map(p => p.value));
      const span = (max - min) || 1;
      const x = v => left + ((v - min) / span) * (W - left - right);
      const svg = svgEl('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', class: 'chart-svg' });
      svg.append(svgEl('title', {}, `Bar chart of ${valName} by ${keyName}, ${points.length} bars`));
      points.forEach((p, i) => {
        const y = top + i * rowH;
        const x0 = x(Math.min(0, p.value)), x1 = x(Math.max(0, p.value));
        svg.append(svgEl('text', { x: left - 8, y: y + rowH / 2 + 4, 'text-anchor': 'end', class: 'axis-label' }, clip(p.key, 24)));
        const bar = svgEl('rect', { x: x0, y: y + 4, width: Math.max(1, x1 - x0), height: rowH - 8, rx: 3, class: 'bar' });
        bar.append(svgEl('title', {}, `${p.key}: ${fmtNum(p.value)}`));
        svg.append(bar);
        svg.append(svgEl('text', { x: x1 + 6, y: y + rowH / 2 + 4, class: 'value-label' }, fmtNum(p.value)));
      });
      svg.append(svgEl('line', { x1: x(0), x2: x(0), y1: top, y2: H - 8, class: 'axis' }));
      fig.append(svg);
      return fig;
    },

    line(points, keyName, valName) {
      const pts = points.map(p => ({ ...p, t: Date.parse(p.key.length === 10 ? p.key + 'T00:00:00Z' : p.key) }))
        .filter(p => !isNaN(p.t)).sort((a, b) => a.t - b.t);
      if (pts.length < 2) return null;
      const fig = this.frame(valName + ' over ' + keyName);
      const W = 640, H = 260, left = 64, right = 16, top = 14, bottom = 34;
      const t0 = pts[0].t, t1 = pts[pts.length - 1].t;
      const vmax = Math.max(...pts.map(p => p.value)), vmin = Math.min(0, ...pts.map(p => p.value));
      const vspan = (vmax - vmin) || 1;
      const x = t => left + ((t - t0) / ((t1 - t0) || 1)) * (W - left - right);
      const y = v => top + (1 - (v - vmin) / vspan) * (H - top - bottom);
      const svg = svgEl('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', class: 'chart-svg' });
      svg.append(svgEl('title', {}, `Line chart of ${valName} over ${keyName}, ${pts.length} points from ${pts[0].key} to ${pts[pts.length - 1].key}`));
      [0, 0.25, 0.5, 0.75, 1].forEach(f => {
        const v = vmin + f * vspan;
        svg.append(svgEl('line', { x1: left, x2: W - right, y1: y(v), y2: y(v), class: 'grid' }));
        svg.append(svgEl('text', { x: left - 6, y: y(v) + 4, 'text-anchor': 'end', class: 'axis-label' }, fmtNum(v)));
      });
      svg.append(svgEl('polyline', { points: pts.map(p => `${x(p.t).toFixed(1)},${y(p.value).toFixed(1)}`).join(' '), class: 'line' }));
      pts.forEach(p => {
        const c = svgEl('circle', { cx: x(p.t), cy: y(p.value), r: 3, class: 'point' });
        c.append(svgEl('title', {}, `${p.key}: ${fmtNum(p.value)}`));
        svg.append(c);
      });
      const labels = pts.length <= 6 ? pts : [pts[0], pts[Math.floor(pts.length / 2)], pts[pts.length - 1]];
      labels.forEach((p, i) => {
        const anchor = labels.length > 1 && i === labels.length - 1 ? 'end' : i === 0 ? 'start' : 'middle';
        svg.append(svgEl('text', { x: x(p.t), y: H - 12, 'text-anchor': anchor, class: 'axis-label' }, p.key.slice(0, 10)));
      });
      fig.append(svg);
      return fig;
    },
  };


  // --- the conversation: a thread of turns, follow-ups, feedback and verification ------------------------

  const CONVERSATION_KEY = 'sqlagent.conversation';

  async function apiPost(path, body) {
    for (let tries = 0; tries < 4; tries++) {
      const headers = { Accept: 'application/json', 'Content-Type': 'application/json' };
      if (token) headers.Authorization = 'Bearer ' + token;
      const res = await fetch(path, { method: 'POST', headers, body: JSON.stringify(body || {}) });
      if (res.status === 401) { await askForToken('That token was not accepted; try again.'); continue; }
      return res;
    }
    throw new Error('not authorised');
  }

  const Thread = {
    id: localStorage.getItem(CONVERSATION_KEY) || null,
    turns: 0,

    /** A new turn goes under the last one, and the question box under it: the follow-up box. */
    add(runEl) {
      $('#runs').append(runEl);
      this.turns++;
      this.layout();
    },

    answered(answer) {
      if (answer.conversation_id && answer.conversation_id !== this.id) {
        this.id = answer.conversation_id;
        localStorage.setItem(CONVERSATION_KEY, this.id);
      }
      this.layout();
    },

    layout() {
      const bar = $('#thread-bar');
      bar.hidden = this.turns === 0;
      $('#thread-count').textContent = this.turns ? 'Conversation · ' + plural(this.turns, 'turn') : '';
      if (this.turns) $('#runs').after(form); else $('#runs').before(form);
      $('.ask-label', form).textContent = this.turns ? 'Ask a follow-up (it can refer to the answers above)'
        : 'Ask a question about your database';
    },

    reset() {
      this.id = null;
      this.turns = 0;
      localStorage.removeItem(CONVERSATION_KEY);
      runs.clear();
      $('#runs').replaceChildren();
      $('#empty-state').hidden = false;
      this.layout();
      box.focus();
    },

    /** After a reload: the stored turns, each as its answer (the live timeline is gone; the SQL and summary stay). */
    async restore() {
      if (!this.id) return;
      try {
        const res = await api('/api/conversations/' + encodeURIComponent(this.id));
        if (res.status === 404 || res.status === 400) { this.reset(); return; }
        if (!res.ok) return;
        const c = await res.json();
        (c.turns || []).forEach(t => this.addStored(t));
      } catch (_) { /* the thread starts afresh */ }
    },

    addStored(t) {
      $('#empty-state').hidden = true;
      const d = el('details', 'run card stored-turn');
      d.open = true;
      d.dataset.runId = t.run_id;
      const s = el('summary', 'run-head');
      const state = t.outcome === 'answered' ? ['Answered', 'state-ok'] : t.outcome === 'refused' ? ['Refused', 'state-refused'] : ['Gave up', 'state-bad'];
      const badges = el('span', 'badges');
      badges.append(el('span', 'badge run-state ' + state[1], state[0]));
      s.append(el('span', 'run-title', t.question), badges);
      const body = el('div', 'run-body');
      const section = el('section', 'answer');
      const ab = el('div', 'answer-body');
      ab.append(el('p', 'answer-text', t.answer || ''));
      if (t.sql && t.outcome === 'answered') {
        ab.append(el('div', 'label', 'SQL'));
        const pre = el('pre', 'sql final-sql');
        pre.append(el('code', null, t.sql));
        ab.append(pre);
      }
      const sum = t.summary || {};
      if (t.outcome === 'answered') {
        ab.append(el('p', 'muted', plural(sum.row_count, 'row') + (sum.columns && sum.columns.length ? ' · ' + sum.columns.join(', ') : '')));
        ab.append(this.feedbackBar(t.run_id, t.feedback && t.feedback.rating, t.question));
      }
      section.append(ab);
      body.append(section);
      d.append(s, body);
      this.add(d);
    },

    /** 👍 / 👎 on an answer; after a 👍, "Verify" saves its question and SQL as a verified query. */
    feedbackBar(runId, rated, question) {
      const bar = el('div', 'feedback');
      bar.setAttribute('role', 'group');
      bar.setAttribute('aria-label', 'Rate this answer');
      const up = el('button', 'fb fb-up', '👍 Right');
      const down = el('button', 'fb fb-down', '👎 Wrong');
      up.type = down.type = 'button';
      up.title = 'Good answer';
      down.title = 'Wrong answer';
      const verify = el('button', 'verify-button', 'Verify: answer this way every time');
      verify.type = 'button';
      // A follow-up ("and for 2024?") means nothing alone: the question to verify can be written in full here.
      const full = el('input', 'verify-question');
      full.type = 'text';
      full.value = question || '';
      full.setAttribute('aria-label', 'The question this SQL answers, in full');
      const verifyBox = el('span', 'verify-box');
      verifyBox.append(full, verify);
      verifyBox.hidden = rated !== 'up';
      const status = el('span', 'feedback-status muted');
      status.setAttribute('role', 'status');
      const mark = r => {
        up.setAttribute('aria-pressed', String(r === 'up'));
        down.setAttribute('aria-pressed', String(r === 'down'));
        verifyBox.hidden = r !== 'up';
      };
      mark(rated);
      const rate = async rating => {
        try {
          const res = await apiPost('/api/runs/' + encodeURIComponent(runId) + '/feedback', { rating });
          const body = await res.json();
          if (!res.ok) { status.textContent = body.message || 'not saved'; return; }
          mark(rating);
          status.textContent = rating === 'up' ? 'Thanks — rated up.' : 'Thanks — rated down.';
        } catch (e) { status.textContent = 'not saved: ' + e.message; }
      };
      up.addEventListener('click', () => rate('up'));
      down.addEventListener('click', () => rate('down'));
      verify.addEventListener('click', async () => {
        verify.disabled = true;
        status.textContent = 'Checking the SQL through the gate…';
        try {
          const res = await apiPost('/api/runs/' + encodeURIComponent(runId) + '/verify',
            full.value.trim() && full.value.trim() !== question ? { question: full.value.trim() } : {});
          const body = await res.json();
          if (!res.ok) { status.textContent = body.message || 'not verified'; verify.disabled = false; return; }
          status.textContent = 'Verified as #' + body.verified_id + ': close paraphrases are answered with this SQL.';
          status.classList.add('verified-ok');
          loadVerified();
        } catch (e) { status.textContent = 'not verified: ' + e.message; verify.disabled = false; }
      });
      bar.append(up, down, verifyBox, status);
      return bar;
    },
  };

  $('#new-conversation').addEventListener('click', () => Thread.reset());

  /** The library beside the schema: how many verified queries answer, and the retired ones with the reason. */
  async function loadVerified() {
    try {
      const res = await api('/api/verified');
      if (!res.ok) return;
      const v = await res.json();
      const bodyEl = $('#verified-body');
      const frag = document.createDocumentFragment();
      frag.append(el('p', 'verified-counts', plural(v.active, 'verified query') + ' in use' + (v.retired ? ', ' + v.retired + ' retired' : '')));
      const retired = (v.verified || []).filter(q => q.status === 'retired');
      if (retired.length) {
        const ul = el('ul', 'retired-list');
        retired.forEach(q => {
          const li = el('li');
          li.append(el('span', 'retired-question', '#' + q.verified_id + ' ' + q.question),
            el('span', 'retired-reason', 'retired: ' + q.retired_reason));
          ul.append(li);
        });
        frag.append(ul);
      }
      bodyEl.replaceChildren(frag);
      $('#verified').hidden = false;
    } catch (_) { /* the library is optional */ }
  }

  // --- schema and evaluation --------------------------------------------------------------------------

  async function loadSchema() {
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

  async function loadEval() {
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

  async function checkModel() {
    try {
      const res = await api('/api/health');
      if (res.status === 404) return;
      const body = await res.json();
      if (findKey(body, 'model_reachable') === false) {
        showBanner('The language model is not reachable at the moment: questions will end with "model unavailable" until it is back.', 'warn');
      }
    } catch (_) { /* health is optional */ }
  }

  function findKey(obj, key) {
    if (!obj || typeof obj !== 'object') return undefined;
    if (key in obj) return obj[key];
    for (const v of Object.values(obj)) {
      const r = findKey(v, key);
      if (r !== undefined) return r;
    }
    return undefined;
  }

  // --- helpers -----------------------------------------------------------------------------------------

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }

  function svgEl(tag, attrs, text) {
    const e = document.createElementNS('http://www.w3.org/2000/svg', tag);
    Object.entries(attrs || {}).forEach(([k, v]) => e.setAttribute(k, String(v)));
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function tableChips(tables) {
    const wrap = el('div', 'chips');
    (tables || []).forEach(t => {
      const c = el('span', 'chip');
      c.append(el('span', null, t.name));
      if (typeof t.score === 'number') c.append(el('span', 'score', t.score.toFixed(2)));
      wrap.append(c);
    });
    return wrap;
  }

  function tableList(tables) {
    return (tables || []).map(t => t.name).join(', ');
  }

  function plural(n, word) {
    n = n ?? 0;
    return n + ' ' + word + (n === 1 ? '' : 's');
  }

  function fmtMs(ms) {
    if (ms == null) return '—';
    return ms < 1000 ? ms + ' ms' : (ms / 1000).toFixed(1) + ' s';
  }

  function fmtNum(v) {
    const n = Number(v);
    if (!isFinite(n)) return String(v);
    return Math.abs(n) >= 1000 || Number.isInteger(n) ? n.toLocaleString('en-US', { maximumFractionDigits: 0 }) : n.toLocaleString('en-US', { maximumFractionDigits: 2 });
  }

  function clip(s, n) {
    return s.length > n ? s.slice(0, n - 1) + '…' : s;
  }

  // --- start -------------------------------------------------------------------------------------------

  (async function start() {
    await loadSchema();          // first: it asks for a token when one is needed
    await Thread.restore();      // a reload keeps the conversation
    connect();
    loadVerified();
    loadEval();
    checkModel();
    box.focus();
  })();
})();
