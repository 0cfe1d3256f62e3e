/**
 * The JSON Schemas a definition declares for what it receives: `schema` of
 * each entry of the top-level `inputs:` map and of the manual trigger's
 * `config.inputs`, the webhook trigger's `config.payloadSchema` (checked
 * against the request body) and a wait's declared `form` (its answers: a signal-wait's `config.form`, a two-phase wait's `config.answer.form`). They are user-written, so they go through the
 * same safe compiler as specification schemas (api/admin/user-schema.ts: size
 * and depth budget, RE2 patterns, local `$ref` only): publish refuses one it
 * would not compile, and execute / webhook ingress check values against it.
 * Ajv cannot run in the workflow sandbox, so these checks live at the API edge.
 */
import { pinnedPluginOf, type WorkflowDefinition } from '../../workflows/engine';
import { HttpError, type FieldError } from '../http/errors';
import { escapePointer } from '../http/validation';
import { compileUserSchema } from '../admin/user-schema';

const isMap = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

interface DeclaredSchema {
  /** Pointer of the schema in the (normalized) definition. */
  path: string;
  schema: unknown;
  /** Input name the schema checks; absent for a webhook payload schema. */
  input?: string;
}

/** Every input declaration of the definition (top-level `inputs:` first, then the manual trigger's), by name. */
export function declaredInputs(definition: WorkflowDefinition): Array<{ name: string; spec: Record<string, unknown>; path: string }> {
  return declarations(definition).inputs;
}

/**
 * Input declarations and webhook payload schemas, in one pass over the steps
 * (every publish runs this; only triggers declare anything).
 */
function declarations(definition: WorkflowDefinition): {
  inputs: Array<{ name: string; spec: Record<string, unknown>; path: string }>;
  payloads: DeclaredSchema[];
} {
  const inputs: Array<{ name: string; spec: Record<string, unknown>; path: string }> = [];
  const payloads: DeclaredSchema[] = [];
  const add = (map: unknown, path: string) => {
    if (!isMap(map)) return;
    for (const [name, spec] of Object.entries(map)) if (isMap(spec)) inputs.push({ name, spec, path: `${path}/${escapePointer(name)}` });
  };
  add(definition.inputs, '/inputs');
  for (const id in definition.steps) {
    const step = definition.steps[id];
    // A wait's declared answer (issue 42): its `form` is compiled at publish; the approval gate checks answers against it.
    if (step.pluginType === 'signal-wait' && isMap(step.config.form))
      payloads.push({ path: `/steps/${escapePointer(step.id)}/config/form`, schema: step.config.form });
    // A two-phase wait's (an operator plugin's) declares it under `answer`.
    if (pinnedPluginOf(definition, step.pluginType)?.twoPhaseWait === true && isMap(step.config.answer) && isMap(step.config.answer.form))
      payloads.push({ path: `/steps/${escapePointer(step.id)}/config/answer/form`, schema: step.config.answer.form });
    if (step.type !== 'trigger') continue;
    if (step.pluginType === 'manual') add(step.config.inputs, `/steps/${escapePointer(step.id)}/config/inputs`);
    else if (step.pluginType === 'webhook' && step.config.payloadSchema !== undefined)
      payloads.push({ path: `/steps/${escapePointer(step.id)}/config/payloadSchema`, schema: step.config.payloadSchema });
  }
  return { inputs, payloads };
}

function declaredSchemas(definition: WorkflowDefinition): DeclaredSchema[] {
  const { inputs, payloads } = declarations(definition);
  const schemas: DeclaredSchema[] = [];
  for (const { name, spec, path } of inputs)
    if (spec.schema !== undefined) schemas.push({ path: `${path}/schema`, schema: spec.schema, input: name });
  return payloads.length === 0 ? schemas : schemas.concat(payloads);
}

/**
 * Publish: one error per declared schema that is not an acceptable JSON
 * Schema, at its path in the document as sent (`body`: steps as an array or
 * a map, keys in either spelling).
 */
export function declaredSchemaErrors(definition: WorkflowDefinition, body: unknown): FieldError[] {
  const errors: FieldError[] = [];
  for (const { path, schema } of declaredSchemas(definition)) {
    const sent = pathAsSent(body, path);
    try {
      compileUserSchema(schema, 'service', sent);
    } catch (error) {
      if (!(error instanceof HttpError)) throw error;
      errors.push({ path: sent, message: error.message });
    }
  }
  return errors;
}

const camel = (key: string): string => key.replace(/_+([a-z0-9])/g, (_, c: string) => c.toUpperCase());
const unescape = (segment: string): string => segment.replace(/~1/g, '/').replace(/~0/g, '~');

/** A pointer into the normalized definition, rewritten into the body the client sent (array index for a step, the key as spelled). */
export function pathAsSent(body: unknown, normalized: string): string {
  let node: unknown = body;
  const out: string[] = [];
  for (const segment of normalized.split('/').slice(1).map(unescape)) {
    let key: string | undefined;
    if (Array.isArray(node)) {
      const index = node.findIndex((entry) => isMap(entry) && entry.id === segment);
      key = index >= 0 ? String(index) : undefined;
    } else if (isMap(node)) {
      key = Object.hasOwn(node, segment) ? segment : Object.keys(node).find((candidate) => camel(candidate) === segment);
    }
    if (key === undefined) return normalized;
    out.push(key);
    node = Array.isArray(node) ? node[Number(key)] : (node as Record<string, unknown>)[key];
  }
  return '/' + out.map(escapePointer).join('/');
}

/** Execute: the inputs that fail their declared `schema`, with the failing paths under `/inputs/<name>`. */
export function inputSchemaErrors(definition: WorkflowDefinition, inputs: Record<string, unknown>): FieldError[] {
  const errors: FieldError[] = [];
  for (const { schema, path, input } of declaredSchemas(definition)) {
    if (input === undefined || !Object.hasOwn(inputs, input) || inputs[input] === undefined) continue;
    const prefix = `/inputs/${escapePointer(input)}`;
    for (const error of compileUserSchema(schema, 'service', path).validate(inputs[input]))
      errors.push({ path: prefix + error.path, message: error.message });
  }
  return errors;
}

/** Webhook ingress: the request body's failures against the trigger's `payloadSchema`, under `/body`. */
export function payloadSchemaErrors(definition: WorkflowDefinition, triggerId: string, body: unknown): FieldError[] {
  const schema = definition.steps[triggerId]?.config.payloadSchema;
  if (schema === undefined) return [];
  const path = `/steps/${escapePointer(triggerId)}/config/payloadSchema`;
  return compileUserSchema(schema, 'service', path)
    .validate(body ?? null)
    .map((error) => ({ path: `/body${error.path}`, message: error.message }));
}
