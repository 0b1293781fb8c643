// Starting a run: the question box, a chosen reading and an edited answer each start one here. The page's entry
// (main.js) says how: it makes the run's card and sends the message. The parts of an answer that start runs import
// this module, not the timeline, so no module imports its way back to itself.

let starter = null;

/** How a run starts: fn({question, mode, message, badge}) makes the run's card, sends the message and returns the run. */
export function startRunsWith(fn) {
  starter = fn;
}

/**
 * Starts a run for question in mode ('agent' or 'baseline') by sending message over the socket; badge ({text, title},
 * optional) marks its card (an edited query, a chosen reading). Returns the run.
 */
export function startRun({ question, mode, message, badge }) {
  if (!starter) throw new Error('the page has not said how a run starts');
  return starter({ question, mode, message, badge });
}
