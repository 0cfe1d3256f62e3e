/**
 * List / Count over the in-memory runs with a subset of Temporal's list filter:
 * = != > >= < <=, AND, OR, NOT, parentheses, IN, NOT IN, BETWEEN … AND …, STARTS_WITH,
 * IS NULL / IS NOT NULL; ORDER BY one or more attributes (ASC/DESC); GROUP BY ExecutionStatus for counts.
 */
import type { Engine } from './engine';
import { invalidArgument } from './errors';
import { L, Status, api, decodePayload, jsonPayload } from './proto';
import type { WorkflowRun } from './run';
import { executionInfo } from './history';

type Value = string | number | boolean | null;
type Node =
  | { kind: 'and' | 'or'; left: Node; right: Node }
  | { kind: 'not'; inner: Node }
  | { kind: 'cmp'; attr: string; op: string; values: Value[] }
  | { kind: 'true' };

const STATUS_NAMES: Record<number, string> = {
  [Status.WORKFLOW_EXECUTION_STATUS_RUNNING]: 'Running',
  [Status.WORKFLOW_EXECUTION_STATUS_COMPLETED]: 'Completed',
  [Status.WORKFLOW_EXECUTION_STATUS_FAILED]: 'Failed',
  [Status.WORKFLOW_EXECUTION_STATUS_CANCELED]: 'Canceled',
  [Status.WORKFLOW_EXECUTION_STATUS_TERMINATED]: 'Terminated',
  [Status.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW]: 'ContinuedAsNew',
  [Status.WORKFLOW_EXECUTION_STATUS_TIMED_OUT]: 'TimedOut',
};

const TIME_ATTRS = new Set(['StartTime', 'CloseTime', 'ExecutionTime']);

function tokenize(query: string): string[] {
  const tokens: string[] = [];
  const re = /\s*(?:('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")|(`[^`]*`)|(>=|<=|!=|<>|=|<|>|\(|\)|,)|([^\s=<>!(),'"`]+))/gy;
  let match: RegExpExecArray | null;
  let index = 0;
  while (index < query.length && (match = re.exec(query)) !== null) {
    index = re.lastIndex;
    const token = match[1] ?? match[2] ?? match[3] ?? match[4];
    if (token !== undefined) tokens.push(token);
    if (/^\s*$/.test(query.slice(index))) break;
  }
  if (index < query.length && !/^\s*$/.test(query.slice(index))) throw invalidArgument(`invalid query near "${query.slice(index)}"`);
  return tokens;
}

export interface OrderBy {
  attr: string;
  desc: boolean;
}

export function parseQuery(query: string): { filter: Node; groupBy?: string; orderBy: OrderBy[] } {
  let text = query.trim();
  let groupBy: string | undefined;
  const group = /\s*GROUP\s+BY\s+(\w+)\s*$/i.exec(text);
  if (group) {
    groupBy = group[1];
    text = text.slice(0, group.index);
  }
  const orderBy: OrderBy[] = [];
  const order = /\s*ORDER\s+BY\s+(.*)$/i.exec(text);
  if (order) {
    text = text.slice(0, order.index);
    for (const part of order[1].split(',')) {
      const [attr, direction = 'ASC'] = part.trim().split(/\s+/);
      if (!attr || !/^(ASC|DESC)$/i.test(direction)) throw invalidArgument(`invalid ORDER BY in "${query}"`);
      orderBy.push({ attr: attr.replace(/^`|`$/g, ''), desc: direction.toUpperCase() === 'DESC' });
    }
  }
  const tokens = tokenize(text);
  let pos = 0;
  const peek = (): string | undefined => tokens[pos];
  const upper = (): string => (tokens[pos] ?? '').toUpperCase();
  const next = (): string => {
    const token = tokens[pos++];
    if (token === undefined) throw invalidArgument(`invalid query "${query}": unexpected end`);
    return token;
  };
  const value = (): Value => {
    const token = next();
    if (/^['"]/.test(token)) return token.slice(1, -1).replace(/\\(.)/g, '$1');
    if (/^-?\d+(\.\d+)?$/.test(token)) return Number(token);
    if (/^(true|false)$/i.test(token)) return token.toLowerCase() === 'true';
    throw invalidArgument(`invalid query "${query}": bad value ${token}`);
  };
  const primary = (): Node => {
    if (peek() === '(') {
      next();
      const inner = or();
      if (next() !== ')') throw invalidArgument(`invalid query "${query}": missing )`);
      return inner;
    }
    if (upper() === 'NOT') {
      next();
      return { kind: 'not', inner: primary() };
    }
    const attr = next().replace(/^`|`$/g, '');
    const op = next();
    const opUpper = op.toUpperCase();
    if (opUpper === 'IN' || (opUpper === 'NOT' && upper() === 'IN')) {
      if (opUpper === 'NOT') next();
      if (next() !== '(') throw invalidArgument(`invalid query "${query}": IN needs (`);
      const values: Value[] = [value()];
      while (peek() === ',') {
        next();
        values.push(value());
      }
      if (next() !== ')') throw invalidArgument(`invalid query "${query}": missing )`);
      const node: Node = { kind: 'cmp', attr, op: 'IN', values };
      return opUpper === 'NOT' ? { kind: 'not', inner: node } : node;
    }
    if (opUpper === 'BETWEEN' || (opUpper === 'NOT' && upper() === 'BETWEEN')) {
      if (opUpper === 'NOT') next();
      const low = value();
      if (next().toUpperCase() !== 'AND') throw invalidArgument(`invalid query "${query}": BETWEEN needs AND`);
      const node: Node = { kind: 'cmp', attr, op: 'BETWEEN', values: [low, value()] };
      return opUpper === 'NOT' ? { kind: 'not', inner: node } : node;
    }
    if (opUpper === 'IS') {
      const negate = upper() === 'NOT';
      if (negate) next();
      if (next().toUpperCase() !== 'NULL') throw invalidArgument(`invalid query "${query}": IS needs NULL`);
      const node: Node = { kind: 'cmp', attr, op: 'NULL', values: [] };
      return negate ? { kind: 'not', inner: node } : node;
    }
    if (opUpper === 'STARTS_WITH') return { kind: 'cmp', attr, op: 'STARTS_WITH', values: [value()] };
    if (!['=', '!=', '<>', '<', '<=', '>', '>='].includes(op)) throw invalidArgument(`invalid query "${query}": unknown operator ${op}`);
    return { kind: 'cmp', attr, op: op === '<>' ? '!=' : op, values: [value()] };
  };
  const and = (): Node => {
    let left = primary();
    while (upper() === 'AND') {
      next();
      left = { kind: 'and', left, right: primary() };
    }
    return left;
  };
  const or = (): Node => {
    let left = and();
    while (upper() === 'OR') {
      next();
      left = { kind: 'or', left, right: and() };
    }
    return left;
  };
  if (tokens.length === 0) return { filter: { kind: 'true' }, groupBy, orderBy };
  const filter = or();
  if (pos !== tokens.length) throw invalidArgument(`invalid query "${query}": unexpected ${tokens[pos]}`);
  return { filter, groupBy, orderBy };
}

function attribute(run: WorkflowRun, name: string): unknown {
  switch (name) {
    case 'WorkflowId':
      return run.workflowId;
    case 'RunId':
      return run.runId;
    case 'WorkflowType':
      return run.workflowType;
    case 'ExecutionStatus':
      return STATUS_NAMES[run.status];
    case 'TaskQueue':
      return run.taskQueue;
    case 'StartTime':
      return run.startTime;
    case 'CloseTime':
      return run.isOpen ? null : run.closeTime;
    case 'ExecutionTime':
      return run.executionTime;
    case 'HistoryLength':
      return run.history.length;
    case 'ParentWorkflowId':
      return run.parent?.workflowId ?? null;
    default: {
      const payload = run.searchAttributes[name];
      return payload ? decodePayload(payload) : null;
    }
  }
}

function compare(actual: unknown, expected: Value, time: boolean): number | undefined {
  if (actual === null || actual === undefined || expected === null) return undefined;
  if (time) {
    const e = typeof expected === 'number' ? expected : Date.parse(String(expected));
    return Number(actual) - e;
  }
  if (typeof actual === 'number') return actual - Number(expected);
  if (typeof actual === 'boolean') return actual === expected ? 0 : 1;
  if (typeof actual !== 'string') return undefined;
  const a = actual;
  const b = String(expected);
  if (typeof actual === 'string' && !Number.isNaN(Date.parse(a)) && /^\d{4}-\d\d-\d\d/.test(a)) return Date.parse(a) - Date.parse(b);
  return a < b ? -1 : a > b ? 1 : 0;
}

function matches(run: WorkflowRun, node: Node): boolean {
  switch (node.kind) {
    case 'true':
      return true;
    case 'and':
      return matches(run, node.left) && matches(run, node.right);
    case 'or':
      return matches(run, node.left) || matches(run, node.right);
    case 'not':
      return !matches(run, node.inner);
    case 'cmp': {
      const actual = attribute(run, node.attr);
      const time = TIME_ATTRS.has(node.attr);
      if (node.op === 'NULL') return actual === null || actual === undefined;
      if (Array.isArray(actual)) {
        const list = actual.map(String);
        if (node.op === '=' || node.op === 'IN') return node.values.some((v) => list.includes(String(v)));
        if (node.op === '!=') return !list.includes(String(node.values[0]));
        return false;
      }
      if (node.op === 'IN') return node.values.some((v) => compare(actual, v, time) === 0);
      if (node.op === 'STARTS_WITH') return typeof actual === 'string' && actual.startsWith(String(node.values[0]));
      if (node.op === 'BETWEEN') {
        const low = compare(actual, node.values[0], time);
        const high = compare(actual, node.values[1], time);
        return low !== undefined && high !== undefined && low >= 0 && high <= 0;
      }
      const c = compare(actual, node.values[0], time);
      if (c === undefined) return node.op === '!=';
      switch (node.op) {
        case '=':
          return c === 0;
        case '!=':
          return c !== 0;
        case '<':
          return c < 0;
        case '<=':
          return c <= 0;
        case '>':
          return c > 0;
        default:
          return c >= 0;
      }
    }
  }
}

function select(engine: Engine, namespace: string, query: string): { runs: WorkflowRun[]; groupBy?: string } {
  const { filter, groupBy, orderBy } = parseQuery(query);
  const runs = [...engine.runs.values()].filter((run) => run.namespace === namespace && matches(run, filter));
  runs.sort((a, b) => {
    for (const { attr, desc } of orderBy) {
      const c = compareValues(attribute(a, attr), attribute(b, attr));
      if (c !== 0) return desc ? -c : c;
    }
    if (orderBy.length > 0) return 0;
    if (a.isOpen !== b.isOpen) return a.isOpen ? -1 : 1;
    if (!a.isOpen && a.closeTime !== b.closeTime) return b.closeTime - a.closeTime;
    return b.startTime - a.startTime;
  });
  return { runs, groupBy };
}

/** Orders attribute values; missing values sort first. */
function compareValues(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === null || a === undefined) return -1;
  if (b === null || b === undefined) return 1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const x = JSON.stringify(a);
  const y = JSON.stringify(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

export function listWorkflows(
  engine: Engine,
  namespace: string,
  req: api.workflowservice.v1.IListWorkflowExecutionsRequest,
): api.workflowservice.v1.IListWorkflowExecutionsResponse {
  const { runs } = select(engine, namespace, req.query ?? '');
  const offset = req.nextPageToken?.length ? Number(Buffer.from(req.nextPageToken).toString()) || 0 : 0;
  const pageSize = req.pageSize && req.pageSize > 0 ? req.pageSize : 1000;
  const page = runs.slice(offset, offset + pageSize);
  const end = offset + page.length;
  return { executions: page.map(executionInfo), nextPageToken: end < runs.length ? Buffer.from(String(end)) : undefined };
}

export function countWorkflows(engine: Engine, namespace: string, query: string): api.workflowservice.v1.ICountWorkflowExecutionsResponse {
  const { runs, groupBy } = select(engine, namespace, query);
  if (!groupBy) return { count: L(runs.length) };
  if (groupBy !== 'ExecutionStatus') throw invalidArgument(`GROUP BY ${groupBy} is not supported (only ExecutionStatus)`);
  const counts = new Map<string, number>();
  for (const run of runs) {
    const name = STATUS_NAMES[run.status];
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  return {
    count: L(runs.length),
    groups: [...counts.entries()].map(([name, count]) => ({ groupValues: [jsonPayload(name, { type: 'Keyword' })], count: L(count) })),
  };
}
