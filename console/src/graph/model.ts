/**
 * A revision's definition as a drawable graph: one node per step (its id, type,
 * plugin and name) and one edge per connection (its ports and condition).
 * Pure: the definition is data from the API and is only read.
 */
export interface GraphNode {
  id: string;
  type: string;
  plugin: string;
  name: string;
}

export interface GraphEdge {
  from: string;
  to: string;
  label: string;
}

export interface StepGraph {
  nodes: GraphNode[];
  edges: GraphEdge[];
}

type Json = Record<string, unknown>;
const str = (value: unknown): string => (typeof value === 'string' ? value : typeof value === 'boolean' ? String(value) : '');

export function graphOf(definition: Json | null | undefined): StepGraph {
  const rawSteps = definition?.steps;
  const steps: Json[] = Array.isArray(rawSteps)
    ? (rawSteps as Json[])
    : rawSteps && typeof rawSteps === 'object'
      ? Object.entries(rawSteps as Record<string, Json>).map(([id, step]) => ({ id, ...step }))
      : [];
  const nodes = steps.map((step) => ({
    id: str(step.id),
    type: str(step.type),
    plugin: str(step.pluginType) || str(step.plugin_type),
    name: str(step.name),
  }));
  const known = new Set(nodes.map((n) => n.id));
  const edges: GraphEdge[] = [];
  const seen = new Set<string>();
  const add = (from: string, to: string, label: string) => {
    const key = `${from}\u0000${to}\u0000${label}`;
    if (!known.has(from) || !known.has(to) || seen.has(key)) return;
    seen.add(key);
    edges.push({ from, to, label });
  };
  for (const connection of Array.isArray(definition?.connections) ? (definition.connections as Json[]) : []) {
    add(str(connection.from), str(connection.to), edgeLabel(connection));
  }
  // Unnormalized definitions may still say dependsOn; draw those edges unless a connection already does.
  const connected = new Set(edges.map((e) => `${e.from}\u0000${e.to}`));
  for (const step of steps) {
    for (const from of Array.isArray(step.dependsOn) ? (step.dependsOn as unknown[]) : []) {
      if (!connected.has(`${str(from)}\u0000${str(step.id)}`)) add(str(from), str(step.id), '');
    }
  }
  return { nodes, edges };
}

function edgeLabel(connection: Json): string {
  const parts: string[] = [];
  const source = str(connection.sourcePort);
  const target = str(connection.targetPort);
  if (source && source !== 'main' && source !== 'default') parts.push(source);
  if (target && target !== 'main' && target !== 'default') parts.push(`→ ${target}`);
  const condition = str(connection.condition) || str(connection.label);
  if (condition) parts.push(`[${condition.length > 40 ? `${condition.slice(0, 39)}…` : condition}]`);
  return parts.join(' ');
}
