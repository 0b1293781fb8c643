// The plain-English account of an answer's SQL (what it reads, keeps, groups, sorts, returns), shown under the SQL.
import { el } from './dom.js';

/** The account of the answer's SQL, or null when it has none. */
export function explanationOf(answer) {
  if (!answer.explanation) return null;
  const box = el('div', 'explanation');
  box.append(el('span', 'label', 'What this SQL does'), el('p', 'explanation-text', answer.explanation));
  return box;
}
