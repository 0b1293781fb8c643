// The agent's graph as the server serves it (GET /api/graph): every node a run's events can name, in graph order, with
// its kind, its label and whether it ends a run; the edges the routers can take and where a run starts. The page keeps
// no list of its own: a node the server adds is drawn, labelled, without a change here.

let byName = new Map();
let served = { nodes: [], edges: [], starts: [], max_attempts: null };

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
    served = {
      nodes,
      edges: Array.isArray(body.edges) ? body.edges : [],
      starts: Array.isArray(body.starts) ? body.starts : [],
      max_attempts: typeof body.max_attempts === 'number' ? body.max_attempts : null,
    };
    return true;
  } catch (e) {
    console.warn('the graph could not be read', e);
    return false;
  }
}

/** The graph as served: {nodes, edges, starts, max_attempts}. */
export function graph() {
  return served;
}

/** Whether the served graph has this node. */
export function known(node) {
  return byName.has(node);
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
