// Small DOM and text helpers shared by the page's modules and the watch page.

export const $ = (sel, root) => (root || document).querySelector(sel);

export function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = text;
  return e;
}

export function svgEl(tag, attrs, text) {
  const e = document.createElementNS('http://www.w3.org/2000/svg', tag);
  Object.entries(attrs || {}).forEach(([k, v]) => e.setAttribute(k, String(v)));
  if (text !== undefined) e.textContent = text;
  return e;
}

const IRREGULAR = { query: 'queries', 'verified query': 'verified queries' };

/** "1 row", "2 rows", "0 verified queries". */
export function plural(n, word) {
  n = n ?? 0;
  return n + ' ' + (n === 1 ? word : IRREGULAR[word] || word + 's');
}

export function fmtMs(ms) {
  if (ms == null) return '—';
  return ms < 1000 ? ms + ' ms' : (ms / 1000).toFixed(1) + ' s';
}

export function fmtNum(v) {
  const n = Number(v);
  if (!isFinite(n)) return String(v);
  return Math.abs(n) >= 1000 || Number.isInteger(n) ? n.toLocaleString('en-US', { maximumFractionDigits: 0 }) : n.toLocaleString('en-US', { maximumFractionDigits: 2 });
}

export function clip(s, n) {
  return s.length > n ? s.slice(0, n - 1) + '…' : s;
}

/** The connection badge in the top bar (#connection): connecting, open or closed. */
export function setConnection(state, text) {
  const c = $('#connection');
  c.className = 'conn conn-' + state;
  c.textContent = text;
}

export function showBanner(text, kind) {
  const b = $('#banner');
  b.textContent = text;
  b.className = 'banner banner-' + (kind || 'info');
  b.hidden = !text;
}
