// Large results page through: the table holds one page of rows (100), with previous/next, never the whole result.
import { el } from './dom.js';

export const PAGE_ROWS = 100;

/**
 * Fills {@code tbody} with one page of {@code rows} ({@code renderRow} makes a <tr>) and returns the controls to put
 * under the table, or null when everything fits on one page.
 */
export function paged(tbody, rows, renderRow) {
  let page = 0;
  const pages = Math.ceil(rows.length / PAGE_ROWS);
  const show = () => tbody.replaceChildren(...rows.slice(page * PAGE_ROWS, (page + 1) * PAGE_ROWS).map(renderRow));
  show();
  if (pages <= 1) return null;
  const bar = el('div', 'pager');
  const prev = el('button', 'secondary pager-prev', '‹ Previous');
  const next = el('button', 'secondary pager-next', 'Next ›');
  const where = el('span', 'pager-where');
  where.setAttribute('role', 'status');
  prev.type = next.type = 'button';
  const update = () => {
    const first = page * PAGE_ROWS + 1;
    const last = Math.min(rows.length, (page + 1) * PAGE_ROWS);
    where.textContent = 'Rows ' + first + '–' + last + ' of ' + rows.length;
    prev.disabled = page === 0;
    next.disabled = page === pages - 1;
  };
  prev.addEventListener('click', () => { if (page > 0) { page--; show(); update(); } });
  next.addEventListener('click', () => { if (page < pages - 1) { page++; show(); update(); } });
  update();
  bar.append(prev, where, next);
  return bar;
}
