/** `temporal.api.operatorservice.v1.OperatorService`: search-attribute registration (in memory). */
import type { Engine } from './engine';
import type { Handler } from './grpc-server';
import { invalidArgument, notFound } from './errors';
import { SYSTEM_SEARCH_ATTRIBUTES } from './namespaces';
import { api, enums } from './proto';

import op = api.operatorservice.v1;

export function operatorServiceHandlers(engine: Engine): Record<string, Handler> {
  const handlers: Record<string, (req: never, ctx: never) => object> = {
    AddSearchAttributes: (req: op.IAddSearchAttributesRequest): op.IAddSearchAttributesResponse => {
      const info = engine.namespaces.get(req.namespace || 'default');
      for (const [name, type] of Object.entries(req.searchAttributes ?? {})) {
        if (SYSTEM_SEARCH_ATTRIBUTES[name] !== undefined) throw invalidArgument(`Search attribute ${name} is reserved by system.`);
        if (type === enums.IndexedValueType.INDEXED_VALUE_TYPE_UNSPECIFIED) throw invalidArgument(`Unknown index value type for ${name}.`);
        info.searchAttributes.set(name, type);
      }
      return {};
    },
    RemoveSearchAttributes: (req: op.IRemoveSearchAttributesRequest): op.IRemoveSearchAttributesResponse => {
      const info = engine.namespaces.get(req.namespace || 'default');
      for (const name of req.searchAttributes ?? []) {
        if (!info.searchAttributes.delete(name)) throw notFound(`Search attribute ${name} doesn't exist.`);
      }
      return {};
    },
    ListSearchAttributes: (req: op.IListSearchAttributesRequest): op.IListSearchAttributesResponse => {
      const info = engine.namespaces.get(req.namespace || 'default');
      return { customAttributes: Object.fromEntries(info.searchAttributes), systemAttributes: SYSTEM_SEARCH_ATTRIBUTES, storageSchema: {} };
    },
  };
  return handlers as Record<string, Handler>;
}
