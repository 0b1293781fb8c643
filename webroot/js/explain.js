// The plain-English account of an answer's SQL (what it reads, keeps, groups, sorts, returns), shown under the SQL. It
// comes as the run's explain_sql event, after the answer.
import { el } from './dom.js';

/** The account of the answer's SQL, or null when it has none. */
export function explanationOf(answer) {
  if (!answer.explanation) return null;
  const box = el('div', 'explanation');
  box.append(el('span', 'label', 'What this SQL does'), el('p', 'explanation-text', answer.explanation));
  return box;
}

/** Puts the account under the final SQL of the answer in {@code card}, once; nothing when the answer shows no SQL. */
export function attachExplanation(card, text) {
  const sql = card.querySelector('.answer .final-sql');
  if (!sql || card.querySelector('.answer .explanation')) return;
  sql.after(explanationOf({ explanation: text }));
}
