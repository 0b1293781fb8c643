// The conversation: a thread of turns, follow-ups, feedback and verification.
import { readingsView } from './clarify.js';
import { $, el, plural } from './dom.js';
import { api, apiPost } from './access.js';
import { runs } from './socket.js';
import { loadVerified } from './verified.js';

const CONVERSATION_KEY = 'sqlagent.conversation';

export const Thread = {
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
    const form = $('#ask-form');
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
    $('#question').focus();
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
    const state = t.outcome === 'answered' ? ['Answered', 'state-ok'] : t.outcome === 'needs_clarification' ? ['Needs a choice', 'state-ok'] : t.outcome === 'refused' ? ['Refused', 'state-refused'] : ['Gave up', 'state-bad'];
    const badges = el('span', 'badges');
    if (t.chosen_by) badges.append(el('span', 'badge badge-desk', t.chosen_by === 'edited' ? 'edited' : 'reading ' + t.chosen_reading));
    badges.append(el('span', 'badge run-state ' + state[1], state[0]));
    s.append(el('span', 'run-title', t.question), badges);
    const body = el('div', 'run-body');
    const section = el('section', 'answer');
    const ab = el('div', 'answer-body');
    ab.append(el('p', 'answer-text', t.answer || ''));
    if (t.clarification) ab.append(readingsView({ run_id: t.run_id, question: t.question, clarification: t.clarification }));
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
