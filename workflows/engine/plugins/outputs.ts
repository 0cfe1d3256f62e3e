/**
 * What a plugin's step outputs, as a small JSON-Schema-like object on its
 * descriptor (`outputSchema`): field names, types and descriptions. A schema
 * with `additionalProperties: false` is closed: the validator refuses a
 * reference to a field it does not name (`steps.h.outputs.status` where
 * http-request returns `statusCode`). Anything else is open-ended (a
 * trigger's payload, code-exec's returned object): its fields are listed for
 * authors and completion, never checked. That is JSON Schema's own default,
 * so an operator's schema written before this is checked only when it says so.
 */

export type OutputType = 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array' | 'null';

export interface OutputSchema {
  type?: OutputType | OutputType[];
  description?: string;
  properties?: Record<string, OutputSchema>;
  items?: OutputSchema;
  /** `false`: the listed properties are all there is (references to others are refused). */
  additionalProperties?: boolean | OutputSchema;
  required?: string[];
  enum?: unknown[];
  [keyword: string]: unknown;
}

type Fields = Record<string, OutputSchema>;

/** An object whose fields are exactly these (references to other fields are refused at publish). */
export function closedOutputs(properties: Fields, description?: string): OutputSchema {
  return { type: 'object', ...(description ? { description } : {}), properties, additionalProperties: false };
}

/** An object that may hold more than these fields (a payload, a script's result): references are not checked. */
export function openOutputs(description: string, properties: Fields = {}): OutputSchema {
  return { type: 'object', description, properties, additionalProperties: true };
}

export const field = (
  type: OutputType | OutputType[] | undefined,
  description: string,
  extra: Partial<OutputSchema> = {},
): OutputSchema => ({
  ...(type === undefined ? {} : { type }),
  description,
  ...extra,
});

/** What a reference finds under a name of an object schema. */
export type FieldLookup = { kind: 'declared'; schema: OutputSchema } | { kind: 'open' } | { kind: 'absent'; names: string[] };

function isSchema(value: unknown): value is OutputSchema {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Whether a schema describes an object whose fields are all listed. */
export function isClosedObject(schema: OutputSchema): boolean {
  return schema.additionalProperties === false && isSchema(schema.properties ?? {});
}

/** The schema of `name` in an object schema (descriptor data: own keys only). */
export function lookupField(schema: unknown, name: string): FieldLookup {
  if (!isSchema(schema)) return { kind: 'open' };
  const properties = isSchema(schema.properties) ? schema.properties : {};
  if (Object.hasOwn(properties, name) && isSchema(properties[name])) return { kind: 'declared', schema: properties[name] };
  return schema.additionalProperties === false ? { kind: 'absent', names: Object.keys(properties) } : { kind: 'open' };
}

/** The type a schema names, as text (`string`, `integer | null`, `any`). */
export function typeText(schema: OutputSchema): string {
  if (schema.type === undefined) return 'any';
  return Array.isArray(schema.type) ? schema.type.join(' | ') : schema.type;
}
