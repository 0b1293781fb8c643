// A warning banner when the health check says the language model cannot be reached.
import { showBanner } from './dom.js';
import { api } from './access.js';

export async function checkModel() {
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
