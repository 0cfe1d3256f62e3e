/**
 * The descriptor an operator's plugin exports, as a JSON Schema (TypeBox,
 * compiled once with Ajv), and its translation into the engine's plain-data
 * descriptor. Config schemas are limited to the subset the engine's one
 * validator checks at publish: an unsupported keyword (pattern, oneOf, $ref…)
 * is refused at start-up rather than silently not enforced.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import Ajv, { type ErrorObject } from 'ajv';
import { TWO_PHASE_WAIT_SETTINGS, isSemver, type PluginDescriptor } from '../../../workflows/engine';
import type { PluginDescriptorExport, PluginPropertySchema } from './plugin-api';

/** A string among `values` (an `enum`, so a wrong value is reported as one, naming the allowed ones). */
function oneOf<const T extends readonly string[]>(values: T) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values] });
}

const ValueType = Type.Union(['string', 'number', 'integer', 'boolean', 'object', 'array'].map((type) => Type.Literal(type)));
const PortList = Type.Array(Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_-]{0,63}$' }), { maxItems: 32, uniqueItems: true });

const Property: TSchema = Type.Recursive(
  (Self) =>
    Type.Object(
      {
        type: Type.Optional(Type.Union([ValueType, Type.Array(ValueType, { minItems: 1 })])),
        description: Type.Optional(Type.String()),
        enum: Type.Optional(Type.Array(Type.Union([Type.String(), Type.Number(), Type.Boolean()]), { minItems: 1 })),
        minimum: Type.Optional(Type.Number()),
        maximum: Type.Optional(Type.Number()),
        minLength: Type.Optional(Type.Integer({ minimum: 0 })),
        format: Type.Optional(Type.Union([Type.Literal('duration'), Type.Literal('cron'), Type.Literal('expression')])),
        items: Type.Optional(Self),
        properties: Type.Optional(Type.Record(Type.String(), Self)),
        required: Type.Optional(Type.Array(Type.String())),
        default: Type.Optional(Type.Unknown()),
      },
      { additionalProperties: false },
    ),
  { $id: 'PluginProperty' },
);

const OutputType = Type.Union(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'].map((type) => Type.Literal(type)));

/**
 * What a step of the plugin outputs (the engine's OutputSchema): names, types and descriptions. With
 * `additionalProperties: false` the validator refuses a reference to a field the schema does not name;
 * otherwise (JSON Schema's default) the fields are listed for authors and completion, never checked.
 */
const OutputProperty: TSchema = Type.Recursive(
  (Self) =>
    Type.Object(
      {
        type: Type.Optional(Type.Union([OutputType, Type.Array(OutputType, { minItems: 1 })])),
        title: Type.Optional(Type.String()),
        description: Type.Optional(Type.String()),
        enum: Type.Optional(Type.Array(Type.Unknown(), { minItems: 1 })),
        format: Type.Optional(Type.String()),
        default: Type.Optional(Type.Unknown()),
        examples: Type.Optional(Type.Array(Type.Unknown())),
        items: Type.Optional(Self),
        properties: Type.Optional(Type.Record(Type.String(), Self)),
        required: Type.Optional(Type.Array(Type.String())),
        additionalProperties: Type.Optional(Type.Union([Type.Boolean(), Self])),
      },
      { additionalProperties: false },
    ),
  { $id: 'PluginOutputProperty' },
);

export const DescriptorExport = Type.Object(
  {
    name: Type.String({ pattern: '^[a-z][a-z0-9-]{0,62}$' }),
    version: Type.String({ minLength: 5, maxLength: 64 }),
    kind: oneOf(['module', 'decider', 'trigger']),
    description: Type.String({ minLength: 1, maxLength: 500 }),
    category: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    executeMode: Type.Optional(oneOf(['each', 'all'])),
    twoPhaseWait: Type.Optional(Type.Boolean()),
    nodeState: Type.Optional(Type.Boolean()),
    inputPorts: Type.Optional(PortList),
    outputPorts: Type.Optional(PortList),
    configSchema: Type.Object(
      {
        type: Type.Literal('object'),
        properties: Type.Record(Type.String(), Property),
        required: Type.Optional(Type.Array(Type.String())),
      },
      { additionalProperties: false },
    ),
    outputSchema: Type.Optional(OutputProperty),
    examples: Type.Optional(
      Type.Array(
        Type.Object({
          title: Type.Optional(Type.String()),
          config: Type.Record(Type.String(), Type.Unknown()),
          inputs: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
        }),
      ),
    ),
    documentation: Type.Optional(Type.String({ maxLength: 100_000 })),
  },
  { additionalProperties: false },
);

const validate = new Ajv({ allErrors: true, strict: false }).compile(DescriptorExport);

/** Problems with an exported descriptor, each naming where (empty when it is valid). */
export function descriptorProblems(value: unknown): string[] {
  if (!validate(value)) return (validate.errors ?? []).map(describeError);
  const descriptor = value as PluginDescriptorExport;
  return [
    ...(isSemver(descriptor.version) ? [] : [`version "${descriptor.version}" is not a semantic version (such as 1.2.0)`]),
    ...kindProblems(descriptor),
    ...(descriptor.outputSchema && descriptor.outputSchema.type !== undefined && descriptor.outputSchema.type !== 'object'
      ? ['/outputSchema describes what a step outputs, always an object: its type must be "object"']
      : []),
  ];
}

/** What a kind asks of the rest of the descriptor (docs/plugins.md, one section per kind). */
function kindProblems(descriptor: PluginDescriptorExport): string[] {
  const problems: string[] = [];
  if (descriptor.kind === 'decider') {
    const ports = (descriptor.outputPorts ?? []).filter((port) => port !== 'default');
    if (ports.length === 0)
      problems.push('a decider declares the ports it routes to: outputPorts must name at least one besides "default"');
  }
  if (descriptor.kind === 'trigger') {
    if ((descriptor.inputPorts ?? []).length > 0) problems.push('a trigger starts its workflow: inputPorts must be empty (or absent)');
    for (const feature of ['twoPhaseWait', 'nodeState', 'executeMode'] as const)
      if (descriptor[feature] !== undefined) problems.push(`a trigger runs no step call: "${feature}" does not apply to it`);
  }
  if (descriptor.twoPhaseWait === true) {
    if (descriptor.kind !== 'module') problems.push(`twoPhaseWait is for modules, and this plugin is a ${descriptor.kind}`);
    const taken = Object.keys(TWO_PHASE_WAIT_SETTINGS).filter((name) => Object.hasOwn(descriptor.configSchema.properties, name));
    if (taken.length > 0)
      problems.push(
        `/configSchema/properties declares ${taken.map((name) => `"${name}"`).join(', ')}, which a two-phase wait's step takes ` +
          "for its wait (the engine adds them): rename the plugin's own",
      );
  }
  if (descriptor.nodeState === true) {
    if (descriptor.kind !== 'module') problems.push(`nodeState is for modules, and this plugin is a ${descriptor.kind}`);
    if (descriptor.executeMode === 'each')
      problems.push('a plugin with nodeState runs once per activation (its state is the step\'s): executeMode must be "all" (its default)');
  }
  return problems;
}

function describeError(error: ErrorObject): string {
  const at = error.instancePath === '' ? 'the descriptor' : error.instancePath;
  if (error.keyword === 'additionalProperties')
    return `${at} has "${String(error.params.additionalProperty)}", which plugin descriptors do not support`;
  if (error.keyword === 'enum' && Array.isArray(error.params.allowedValues))
    return `${at} must be one of ${(error.params.allowedValues as unknown[]).map((value) => JSON.stringify(value)).join(', ')}`;
  return `${at} ${error.message ?? 'is invalid'}`;
}

/** The engine's descriptor of a valid export (an operator plugin's calls always run as activities). */
export function engineDescriptor(descriptor: PluginDescriptorExport): PluginDescriptor {
  const waits = descriptor.twoPhaseWait === true;
  const outputPorts = descriptor.outputPorts ?? ['default'];
  const properties = Object.fromEntries(
    Object.entries(descriptor.configSchema.properties).map(([name, schema]) => [name, property(schema)]),
  );
  return {
    name: descriptor.name,
    version: descriptor.version,
    kind: descriptor.kind,
    description: descriptor.description,
    // A step with state runs once per activation, on the batch.
    executeMode: descriptor.executeMode ?? (descriptor.nodeState === true ? 'all' : 'each'),
    // A trigger step runs nothing (its payload is its output), as the built-in triggers, which say inline.
    inline: descriptor.kind === 'trigger',
    inputPorts: descriptor.inputPorts ?? (descriptor.kind === 'trigger' ? [] : ['default']),
    // A two-phase wait leaves through `timeout` when it times out with onTimeout: continue (as signal-wait).
    outputPorts: waits && !outputPorts.includes('timeout') ? [...outputPorts, 'timeout'] : outputPorts,
    configSchema: {
      properties: waits ? { ...properties, ...TWO_PHASE_WAIT_SETTINGS } : properties,
      ...(descriptor.configSchema.required ? { required: descriptor.configSchema.required } : {}),
    },
    ...(waits ? { twoPhaseWait: true } : {}),
    ...(descriptor.nodeState === true ? { nodeState: true } : {}),
    ...(descriptor.category ? { category: descriptor.category } : {}),
    ...(descriptor.outputSchema ? { outputSchema: descriptor.outputSchema } : {}),
    ...(descriptor.examples ? { examples: descriptor.examples } : {}),
    ...(descriptor.documentation ? { documentation: descriptor.documentation } : {}),
  };
}

function property(schema: PluginPropertySchema): PluginDescriptor['configSchema']['properties'][string] {
  const { type, items, properties, ...rest } = schema;
  return {
    ...rest,
    type: type ?? 'any',
    ...(items ? { items: property(items) } : {}),
    ...(properties ? { properties: Object.fromEntries(Object.entries(properties).map(([name, inner]) => [name, property(inner)])) } : {}),
  };
}
