// Charts chosen from column types, never by the model: a category and a number → bars; a date and a number → a line.
import { el, svgEl, fmtNum, clip } from './dom.js';

export const Charts = {
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
    const pts = points.map(p => ({ ...p, t: Date.parse(isoTime(p.key)) }))
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


/** PostgreSQL's date/time text ("2022-01-01", "2022-01-01 10:00:00+02") as ISO 8601 for Date.parse; no zone reads as UTC. */
export function isoTime(text) {
  const m = /^(\d{4,}-\d\d-\d\d)(?:[ T](\d\d:\d\d(?::\d\d(?:\.\d+)?)?)([+-]\d\d(?::?\d\d)?|Z)?)?$/.exec(text.trim());
  if (!m) return text;
  const [, date, time = '00:00:00', zone] = m;
  if (!zone || zone === 'Z') return date + 'T' + time + 'Z';
  return date + 'T' + time + (zone.length === 3 ? zone + ':00' : zone.length === 5 ? zone.slice(0, 3) + ':' + zone.slice(3) : zone);
}
