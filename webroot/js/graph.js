// The agent's graph as the server serves it (GET /api/graph): every node a run's events can name, with its kind, its
// label and whether it ends a run, and the edges a run can take between them. The page keeps no list of its own: a node
// the server adds is drawn, labelled, without a change here.

let byName = new Map();
let edges = [];

/**
 * Reads the graph through fetchJson (the page's authorised fetch). Resolves true when it was read; false when it was
 * not, and steps then show their bare names and a run ends on its answer message alone.
 */
export async function loadGraph(fetchJson) {
  try {
    const res = await fetchJson('/api/graph');
    if (!res.ok) return false;
    const body = await res.json();
    const nodes = (body && Array.isArray(body.nodes) ? body.nodes : [])
      .filter(n => n && typeof n === 'object' && typeof n.name === 'string');
    byName = new Map(nodes.map(n => [n.name, n]));
    edges = (Array.isArray(body.edges) ? body.edges : [])
      .filter(e => e && typeof e.from === 'string' && typeof e.to === 'string');
    return true;
  } catch (e) {
    console.warn('the graph could not be read', e);
    return false;
  }
}

/** The node's human label; a node the graph does not name shows its name. */
export function label(node) {
  const n = byName.get(node);
  return n && typeof n.label === 'string' && n.label ? n.label : node;
}

/** What sort of work the node does (retriever, generation, guardrail, tool, decision, answer), or "". */
export function kind(node) {
  const n = byName.get(node);
  return n && typeof n.kind === 'string' ? n.kind : '';
}

/** A run is over when a node that ends it finishes. */
export function endsRun(node) {
  const n = byName.get(node);
  return !!(n && n.ends === true);
}

/** Where a run can go from the node, in the order its router tries: "Check SQL (a verified query is close enough); …". */
export function nextSteps(node) {
  return edges.filter(e => e.from === node)
    .map(e => label(e.to) + (typeof e.when === 'string' && e.when ? ' (' + e.when + ')' : ''))
    .join('; ');
}
