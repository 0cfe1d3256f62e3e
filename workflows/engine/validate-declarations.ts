/**
 * Checks of declared input names and types: the manual trigger's `inputs`, the
 * definition's `inputs` and the webhook trigger's `payloadSchema`. A name or a
 * type such as `__proto__`, `constructor` or `prototype` (any property every
 * JavaScript object inherits) would be looked up on `Object.prototype` by code
 * that maps names to checks, so it is refused at publish with a precise error
 * instead of failing at execute.
 */
import type { DefinitionIssue } from './definition';
import { isObject } from './normalize';
import { join } from './pointer';

const reserved = (name: string): boolean => name === 'prototype' || name in Object.prototype;
const RESERVED_HINT = 'is reserved (every JavaScript object has a property of that name)';

/** `{name: {type, required, …}}` maps. */
export function checkInputDeclarations(declared: unknown, path: string, issues: DefinitionIssue[]): void {
  if (!isObject(declared)) return;
  for (const [name, spec] of Object.entries(declared)) {
    if (reserved(name)) issues.push({ path: join(path, name), message: `input name "${name}" ${RESERVED_HINT}` });
    if (!isObject(spec) || spec.type === undefined) continue;
    if (typeof spec.type !== 'string') issues.push({ path: join(path, name, 'type'), message: 'must be a string' });
    else if (reserved(spec.type)) issues.push({ path: join(path, name, 'type'), message: `input type "${spec.type}" ${RESERVED_HINT}` });
  }
}

/** A JSON-Schema-like payload schema, at any depth: `type` values and property names. */
export function checkPayloadSchema(schema: unknown, path: string, issues: DefinitionIssue[]): void {
  if (Array.isArray(schema)) {
    schema.forEach((item, index) => checkPayloadSchema(item, join(path, index), issues));
    return;
  }
  if (!isObject(schema)) return;
  for (const [key, value] of Object.entries(schema)) {
    if (reserved(key)) issues.push({ path: join(path, key), message: `property name "${key}" ${RESERVED_HINT}` });
    const types = key === 'type' ? (Array.isArray(value) ? value : [value]) : [];
    for (const type of types) {
      if (typeof type === 'string' && reserved(type)) issues.push({ path: join(path, key), message: `type "${type}" ${RESERVED_HINT}` });
    }
    checkPayloadSchema(value, join(path, key), issues);
  }
}

/** The names config entries may have (api/workflows/config-routes.ts). */
const CONFIG_ENTRY_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

/**
 * `secrets: {name: {}}` declares a secret the run needs (a missing one fails
 * the start with SECRET_UNRESOLVED); `{key: "STORED"}` binds the name to the
 * config entry STORED, which must be a name an entry can have.
 */
export function checkSecretDeclarations(declared: Record<string, unknown>, path: string, issues: DefinitionIssue[]): void {
  for (const [name, spec] of Object.entries(declared)) {
    if (reserved(name) || !/^[A-Za-z_][A-Za-z0-9_.-]*$/.test(name)) {
      issues.push({ path: join(path, name), message: `secret name "${name}" must match ^[A-Za-z_][A-Za-z0-9_.-]*$ and not be reserved` });
    } else if (!isObject(spec)) {
      issues.push({ path: join(path, name), message: 'a secret declaration must be an object ({} or {key: "STORED_NAME"})' });
    } else if (spec.key !== undefined && !(typeof spec.key === 'string' && CONFIG_ENTRY_NAME.test(spec.key))) {
      issues.push({
        path: join(path, name, 'key'),
        message: `must name a config entry (^[A-Za-z_][A-Za-z0-9_]{0,127}$; got ${JSON.stringify(spec.key)}): store the secret under such a name and bind to it`,
      });
    }
  }
}
