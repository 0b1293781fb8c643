// First contact: before the first question, what the page talks to — the model (reachable or not, and how to point at
// one) and the database it reads (name, host, role, visible tables) — from /api/health.
import { $, el, showBanner } from './dom.js';
import { api } from './access.js';

/** The README's way to point sql-agent at a model: a local one, or any OpenAI-compatible service. */
export const MODEL_HOWTO = 'java -jar target/sql-agent.jar model pull && java -jar target/sql-agent.jar   # a local model, no key\n'
  + 'ollama pull qwen2.5-coder:7b && ollama serve          # or Ollama (SQLAGENT_LLM_BASE_URL unset, no model file)\n'
  + 'SQLAGENT_LLM_BASE_URL=https://api.openai.com/v1 SQLAGENT_LLM_MODEL=gpt-4o-mini \\\n'
  + 'SQLAGENT_LLM_API_KEY=sk-... java -jar target/sql-agent.jar      # or any OpenAI-compatible service';

export async function showStatus() {
  const box = $('#first-contact');
  let health;
  try {
    const res = await api('/api/health');
    if (res.status === 404) return;
    health = await res.json();
  } catch (_) {
    return;  // health is optional
  }
  const check = id => ((health.checks || []).find(c => c.id === id) || {}).data || {};
  const db = check('db_reachable');
  const model = check('model');
  const target = el('p', 'target-line');
  target.append(el('span', 'k', 'Database '), el('strong', null, health.database || db.database || 'unknown'),
    el('span', null, (db.host ? ' on ' + db.host : '') + (db.role ? ' as ' + db.role : '')
      + (health.tables != null ? ' · ' + health.tables + ' table' + (health.tables === 1 ? '' : 's') + ' visible' : '')));
  const reachable = health.model_reachable === true;
  const local = model.where === 'local';
  const modelLine = el('p', 'model-line ' + (reachable ? 'state-ok' : 'state-bad'));
  // A local model's URL is a loopback port on the server, of no use to whoever reads the page.
  modelLine.append(el('span', 'k', 'Model '), el('strong', null, model.name || health.model || 'unknown'),
    el('span', null, (model.base_url && !local ? ' at ' + model.base_url : '') + (reachable ? ': reachable' : ': not reachable')));
  const parts = [target, modelLine];
  const served = check('model_reachable').served;
  if (local || served) parts.push(localModelLine(model, served));
  if (!reachable) {
    const help = el('div', 'notice notice-warn model-help');
    help.append(el('p', null, 'No language model is reachable, so questions cannot be answered yet. The schema and the '
      + 'SQL console work without one. To point sql-agent at a model, start it with:'));
    const pre = el('pre', 'howto');
    pre.append(el('code', null, MODEL_HOWTO));
    help.append(pre);
    parts.push(help);
    showBanner('The language model is not reachable: questions will end with "model unavailable" until it is. '
      + 'The schema and the SQL console still work.', 'warn');
  }
  box.replaceChildren(...parts);
  box.hidden = false;
}

/**
 * Which model answers, where it runs and how fast it was measured to be: a small model on a CPU reads a question's
 * prompt (a few thousand tokens) for tens of seconds, and a person should know that before asking.
 */
export function localModelLine(model, served) {
  const line = el('p', 'model-where');
  // The page may be read on another machine than the server's: "this machine" would mislead.
  const where = model.where === 'local' ? 'Runs on the sql-agent server, in a process of its own' : 'Served';
  const facts = served ? [served.architecture, served.quantization, served.size ? Math.round(served.size / 1e6) + ' MB' : null,
    served.n_ctx ? served.n_ctx + '-token context' : null].filter(Boolean).join(', ') : '';
  line.append(el('span', 'k', 'Where '), el('span', null, where + (served && served.file ? (model.where === 'local' ? ', from ' : ' from ') + served.file : '')
    + (facts ? ' (' + facts + ')' : '')));
  const m = served && served.measured;
  if (m && m.prompt_per_second) {
    const secs = Math.round(3000 / m.prompt_per_second);
    line.append(el('span', 'model-speed', ' · measured at start: reads ' + m.prompt_per_second + ' prompt tokens/s, writes '
      + (m.predicted_per_second || '?') + ' tokens/s; a question\'s prompt of about 3,000 tokens takes about '
      + (secs >= 120 ? Math.round(secs / 60) + ' min' : secs + ' s') + ' to read'));
  } else if (served && served.loaded === false) {
    line.append(el('span', 'model-speed', ' · still loading'));
  }
  return line;
}
