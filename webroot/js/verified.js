// The library beside the schema: how many verified queries answer, and the retired ones with the reason.
import { $, el, plural } from './dom.js';
import { api } from './access.js';

export async function loadVerified() {
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
