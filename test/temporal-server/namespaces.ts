/** Registered namespaces (in memory; `default` plus any given at start-up or registered) and their custom search attributes. */
import { randomUUID } from 'node:crypto';
import { invalidArgument, namespaceNotFound } from './errors';
import { decodePayload, enums, type Payload } from './proto';

const T = enums.IndexedValueType;

export interface NamespaceInfo {
  name: string;
  id: string;
  description: string;
  retentionDays: number;
  /** Custom search attributes (the dev server's pre-registered ones plus any added). */
  searchAttributes: Map<string, enums.IndexedValueType>;
}

export const SYSTEM_SEARCH_ATTRIBUTES: Record<string, enums.IndexedValueType> = {
  WorkflowId: T.INDEXED_VALUE_TYPE_KEYWORD,
  RunId: T.INDEXED_VALUE_TYPE_KEYWORD,
  WorkflowType: T.INDEXED_VALUE_TYPE_KEYWORD,
  ExecutionStatus: T.INDEXED_VALUE_TYPE_KEYWORD,
  TaskQueue: T.INDEXED_VALUE_TYPE_KEYWORD,
  StartTime: T.INDEXED_VALUE_TYPE_DATETIME,
  CloseTime: T.INDEXED_VALUE_TYPE_DATETIME,
  ExecutionTime: T.INDEXED_VALUE_TYPE_DATETIME,
  HistoryLength: T.INDEXED_VALUE_TYPE_INT,
  TemporalChangeVersion: T.INDEXED_VALUE_TYPE_KEYWORD_LIST,
  TemporalScheduledStartTime: T.INDEXED_VALUE_TYPE_DATETIME,
  TemporalScheduledById: T.INDEXED_VALUE_TYPE_KEYWORD,
  BuildIds: T.INDEXED_VALUE_TYPE_KEYWORD_LIST,
};

/** System attributes the SDK and the scheduler set themselves. */
const SETTABLE_SYSTEM_ATTRIBUTES = new Map<string, enums.IndexedValueType>([
  ['TemporalChangeVersion', T.INDEXED_VALUE_TYPE_KEYWORD_LIST],
  ['TemporalScheduledStartTime', T.INDEXED_VALUE_TYPE_DATETIME],
  ['TemporalScheduledById', T.INDEXED_VALUE_TYPE_KEYWORD],
  ['BuildIds', T.INDEXED_VALUE_TYPE_KEYWORD_LIST],
]);

function valueMatches(value: unknown, type: enums.IndexedValueType): boolean {
  switch (type) {
    case T.INDEXED_VALUE_TYPE_INT:
      return typeof value === 'number' && Number.isInteger(value);
    case T.INDEXED_VALUE_TYPE_DOUBLE:
      return typeof value === 'number';
    case T.INDEXED_VALUE_TYPE_BOOL:
      return typeof value === 'boolean';
    case T.INDEXED_VALUE_TYPE_DATETIME:
      return typeof value === 'string' && !Number.isNaN(Date.parse(value));
    default:
      return typeof value === 'string';
  }
}

const TYPE_NAMES: Record<string, enums.IndexedValueType> = {
  text: T.INDEXED_VALUE_TYPE_TEXT,
  keyword: T.INDEXED_VALUE_TYPE_KEYWORD,
  int: T.INDEXED_VALUE_TYPE_INT,
  double: T.INDEXED_VALUE_TYPE_DOUBLE,
  bool: T.INDEXED_VALUE_TYPE_BOOL,
  datetime: T.INDEXED_VALUE_TYPE_DATETIME,
  keywordlist: T.INDEXED_VALUE_TYPE_KEYWORD_LIST,
};

/** `Keyword`, `Int`, … (as in `--search-attribute Name=Keyword`) → IndexedValueType. */
export function indexedValueType(name: string): enums.IndexedValueType {
  const type = TYPE_NAMES[name.toLowerCase().replace(/_/g, '')];
  if (type === undefined) throw invalidArgument(`unknown search attribute type "${name}"`);
  return type;
}

export class Namespaces {
  private readonly byName = new Map<string, NamespaceInfo>();

  register(name: string, description = '', retentionDays = 1): NamespaceInfo {
    const existing = this.byName.get(name);
    if (existing) return existing;
    const info: NamespaceInfo = { name, id: randomUUID(), description, retentionDays, searchAttributes: new Map() };
    this.byName.set(name, info);
    return info;
  }

  /** Why `fields` may not be set (an unregistered or system attribute, or a value of the wrong type), if so. */
  searchAttributeProblem(namespace: string, fields: Record<string, Payload> | null | undefined): string | undefined {
    const info = this.get(namespace);
    for (const [name, payload] of Object.entries(fields ?? {})) {
      const type = info.searchAttributes.get(name) ?? SETTABLE_SYSTEM_ATTRIBUTES.get(name);
      if (type === undefined) return `Namespace ${namespace} has no mapping defined for search attribute ${name}`;
      if (!payload.data || payload.data.length === 0) continue;
      const value = decodePayload(payload);
      const values = Array.isArray(value) ? (value as unknown[]) : [value];
      if (value !== null && value !== undefined && !values.every((v) => valueMatches(v, type))) {
        return `invalid value for search attribute ${name} of type ${enums.IndexedValueType[type].replace('INDEXED_VALUE_TYPE_', '')}: ${JSON.stringify(value)}`;
      }
    }
    return undefined;
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  get(name: string): NamespaceInfo {
    const info = this.byName.get(name);
    if (!info) throw namespaceNotFound(name);
    return info;
  }

  list(): NamespaceInfo[] {
    return [...this.byName.values()];
  }
}
