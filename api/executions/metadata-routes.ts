/**
 * GET /workflows/metadata (anonymous), GET /workflows/plugins and
 * /workflows/plugins/{name}: full descriptors (version, category, kind,
 * execute mode, ports, config as JSON Schema, output schema, examples,
 * documentation) of the built-in plugins and the operator's own.
 */
import { Type } from '@sinclair/typebox';
import { MAX_STEP_RUNS, PLUGINS, describePlugin, type PublicPluginDescriptor } from '../../workflows/engine';
import { defineRoute, type RouteDefinition } from '../http/route';
import type { ExecutionDeps } from './deps';
import { pluginNotFound } from './errors';

export const API_VERSION = '1.0.0';
const tags = ['Workflow engine'];
const Kind = Type.Union([Type.Literal('trigger'), Type.Literal('decider'), Type.Literal('module')]);
const JsonObject = Type.Record(Type.String(), Type.Unknown());
const OutputField = Type.Object(
  {
    type: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())])),
    description: Type.Optional(Type.String()),
    properties: Type.Optional(JsonObject),
    additionalProperties: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: true, description: 'one output field: its type (none: any) and description; an object may list its own fields' },
);
const OutputSchema = Type.Object(
  {
    type: Type.Literal('object'),
    description: Type.Optional(Type.String()),
    properties: Type.Optional(Type.Record(Type.String(), OutputField)),
    additionalProperties: Type.Optional(
      Type.Unknown({
        description:
          'false: the fields listed are all a step outputs, and publish refuses a reference to another (steps.<id>.outputs.<field>); otherwise open-ended (a payload, a script result): the fields are not checked',
      }),
    ),
  },
  { additionalProperties: true, title: 'PluginOutputSchema', description: 'what a step of the plugin outputs (steps.<id>.outputs)' },
);
const Descriptor = Type.Object(
  {
    name: Type.String(),
    version: Type.String({ description: 'semantic version (built-ins: the engine version)' }),
    category: Type.String(),
    kind: Kind,
    pluginType: Kind,
    source: Type.Union([Type.Literal('built-in'), Type.Literal('operator')], { description: 'operator: loaded through PLUGINS' }),
    description: Type.String(),
    executeMode: Type.Union([Type.Literal('each'), Type.Literal('all')]),
    executeModeFrom: Type.Optional(JsonObject),
    inline: Type.Boolean({ description: 'runs inside the workflow rather than as an activity' }),
    light: Type.Boolean({
      description:
        "runs as a local activity when the step timeout (without one: an http-request's call timeout, default 30 s) is at most LIGHT_STEP_MAX_TIMEOUT_MS",
    }),
    nodeState: Type.Boolean({ description: 'keeps state for its step across the execution (calls get what the previous one left)' }),
    twoPhaseWait: Type.Boolean({ description: 'does a side effect, then parks its step on a signal (timeout, onTimeout; a timeout port)' }),
    inputPorts: Type.Array(Type.String()),
    outputPorts: Type.Array(Type.String()),
    dynamicPorts: Type.Boolean(),
    configSchema: Type.Unknown({ description: 'JSON Schema of the step config' }),
    outputSchema: OutputSchema,
    examples: Type.Array(JsonObject),
    documentation: Type.String(),
  },
  { title: 'PluginDescriptor' },
);

/** `deps`: the plugin catalog is read by members of the organization (workflow:read on it); the metadata is anonymous. */
export function metadataRoutes(deps: Pick<ExecutionDeps, 'dataSource' | 'plugins'>): RouteDefinition[] {
  // Built once: descriptors are fixed for the life of the process.
  const catalog = new Map<string, PublicPluginDescriptor>(
    [
      ...Object.values(PLUGINS).map((plugin) => describePlugin(plugin)),
      ...Object.values(deps.plugins ?? {}).map((plugin) => describePlugin(plugin, 'operator')),
    ]
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((descriptor) => [descriptor.name, descriptor]),
  );
  return [
    defineRoute({
      method: 'get',
      path: '/workflows/metadata',
      operationId: 'getEngineMetadata',
      summary: 'Engine capabilities',
      tags,
      access: { public: 'engine capabilities and limits; no tenant data' },
      responses: {
        200: {
          description: 'Capabilities',
          schema: Type.Object({
            apiVersion: Type.String(),
            pluginCount: Type.Integer(),
            supportedPluginTypes: Type.Array(Type.String()),
            maxNodeExecutions: Type.Integer(),
            topology: Type.Literal('distributed'),
            features: Type.Object({ rbac: Type.Boolean(), multiOrg: Type.Boolean() }),
          }),
        },
      },
      handler() {
        const names = [...catalog.keys()];
        return {
          status: 200,
          body: {
            apiVersion: API_VERSION,
            pluginCount: names.length,
            supportedPluginTypes: names,
            maxNodeExecutions: MAX_STEP_RUNS,
            topology: 'distributed',
            features: { rbac: true, multiOrg: true },
          },
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/workflows/plugins',
      operationId: 'listPlugins',
      summary: 'Plugin descriptors',
      tags,
      access: { permission: 'workflow:read', on: 'organization' },
      query: Type.Object({
        type: Type.Optional(
          Type.Union([Type.Literal('trigger'), Type.Literal('decider'), Type.Literal('module')], { description: 'plugin kind' }),
        ),
        q: Type.Optional(Type.String({ maxLength: 200, description: 'case-insensitive text in the name or description' })),
      }),
      responses: { 200: { description: 'Descriptors', schema: Type.Object({ data: Type.Array(Descriptor) }) } },
      handler({ query }) {
        const text = query.q?.toLowerCase();
        const data = [...catalog.values()]
          .filter((plugin) => query.type === undefined || plugin.kind === query.type)
          .filter(
            (plugin) => text === undefined || plugin.name.toLowerCase().includes(text) || plugin.description.toLowerCase().includes(text),
          );
        return { status: 200, body: { data } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/workflows/plugins/{name}',
      operationId: 'getPlugin',
      summary: 'One plugin descriptor',
      tags,
      access: { permission: 'workflow:read', on: 'organization' },
      params: Type.Object({ name: Type.String({ minLength: 1, maxLength: 100 }) }),
      responses: { 200: { description: 'The descriptor', schema: Descriptor } },
      handler({ params }) {
        const plugin = catalog.get(params.name);
        if (!plugin) throw pluginNotFound(params.name);
        return { status: 200, body: plugin };
      },
    }),
  ];
}
