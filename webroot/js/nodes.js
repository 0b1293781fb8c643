// The agent graph's node names, as they arrive in each event's "node" field, in one place.
// The list below is the fallback; when the server describes its graph at /api/graph, its labels win.

export const NODE = Object.freeze({
  SELECT_SCHEMA: 'select_schema',
  GENERATE_SQL: 'generate_sql',
  INJECT_FAULT: 'inject_fault',
  VALIDATE_SQL: 'validate_sql',
  EXECUTE_SQL: 'execute_sql',
  INSPECT_RESULT: 'inspect_result',
  DECIDE: 'decide',
  PREPARE_REPAIR: 'prepare_repair',
  CANDIDATE: 'candidate',
  VOTE: 'vote',
  ANSWER: 'answer',
  GIVE_UP: 'give_up',
  CANCELLED: 'cancelled',
  CLARIFY: 'clarify',
});

/** Every node, in graph order. */
export const NODES = Object.freeze(Object.values(NODE));

/** A run is over when one of these finishes. */
export const END_NODES = new Set([NODE.ANSWER, NODE.GIVE_UP, NODE.CANCELLED, NODE.CLARIFY]);

const labels = new Map([
  [NODE.SELECT_SCHEMA, 'Schema selection'],
  [NODE.GENERATE_SQL, 'Generate SQL'],
  [NODE.INJECT_FAULT, 'Fault injected (evaluation)'],
  [NODE.VALIDATE_SQL, 'Checked by the gate'],
  [NODE.EXECUTE_SQL, 'Ran'],
  [NODE.INSPECT_RESULT, 'Inspect the result'],
  [NODE.DECIDE, 'Decision'],
  [NODE.PREPARE_REPAIR, 'Repair strategy'],
  [NODE.CANDIDATE, 'Candidate'],
  [NODE.VOTE, 'Vote'],
  [NODE.ANSWER, 'Answer'],
  [NODE.GIVE_UP, 'Gave up'],
  [NODE.CANCELLED, 'Stopped'],
  [NODE.CLARIFY, 'Asked which reading'],
]);

/** The human label of a node; an unknown node shows its name. */
export function label(node) {
  return labels.get(node) || node;
}

/**
 * Takes the labels from the server's graph description when it serves one (an array of names, or of
 * {name, label} objects, bare or under "nodes"); anything else leaves the list above in place.
 */
export async function loadGraph(fetchJson) {
  try {
    const res = await fetchJson('/api/graph');
    if (!res.ok) return;
    const body = await res.json();
    const nodes = Array.isArray(body) ? body : body && Array.isArray(body.nodes) ? body.nodes : [];
    for (const n of nodes) {
      if (n && typeof n === 'object' && typeof n.name === 'string' && typeof n.label === 'string') labels.set(n.name, n.label);
    }
  } catch (_) { /* the built-in list stands */ }
}
