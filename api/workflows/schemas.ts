/** Response and parameter schemas of the workflow definition routes (they feed OpenAPI). */
import { Type } from '@sinclair/typebox';

const Json = Type.Record(Type.String(), Type.Unknown());
const DateTime = Type.String({ format: 'date-time' });

export const WorkflowRef = Type.Object({ id: Type.String({ minLength: 1, maxLength: 128, description: 'Workflow id (wf_…) or key' }) });
/** A POST whose request carries nothing: any object (or no body) is accepted and nothing in it is read. */
export const NoFields = Type.Object({}, { additionalProperties: true, description: 'Nothing is read from the body: send {} or no body' });
/** The upsert's key or id, under the same path parameter name as WorkflowRef: one segment, one name, in the OpenAPI document. */
export const WorkflowKeyParam = Type.Object({
  id: Type.String({
    pattern: '^(?:[a-z0-9][a-z0-9-]{0,62}|wf_[0-9a-f]{1,64})$',
    description:
      'Workflow key (creates or updates the workflow of that key) or id (wf_…: a new revision of that workflow, which must exist)',
  }),
});
export const AliasParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 128 }),
  alias: Type.String({ minLength: 1, maxLength: 63 }),
});
export const RevisionParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 128 }), n: Type.Integer({ minimum: 1 }) });
/** Engine list paging (docs/security.md, "Paging maxima"): above either maximum the request answers 400. */
export const MAX_PAGE = 10_000;
export const MAX_PAGE_LIMIT = 200;
export const Paging = {
  // A page deeper than this is an OFFSET scan of millions of rows; filter instead.
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE, default: 1 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE_LIMIT, default: 50 })),
};

/** Definitions are validated by the engine (one validator, paths into the document), so the body schema only documents. */
export const DefinitionBody = Type.Unsafe<Record<string, unknown>>({
  type: 'object',
  description: 'WorkflowDefinition (camelCase or snake_case keys; steps as a map or an array). Additional properties are allowed.',
  additionalProperties: true,
  // Documentation only (no constraints): the engine reports every problem with its path, so Ajv must not pre-empt it.
  properties: {
    name: { description: 'string, required' },
    key: { description: 'string matching ^[a-z0-9][a-z0-9-]{0,62}$; unique per organization; immutable' },
    description: { description: 'string' },
    path: { description: 'folder, default /' },
    nrn: { description: 'default: the caller organization' },
    steps: { description: 'map of step id to step, or array of steps with id' },
    connections: { description: 'array of {from, to, sourcePort, targetPort, condition}' },
    variables: { description: 'map of name to {initialValue}' },
    metadata: { description: 'object' },
    semanticVersion: { description: 'label stored on the revision' },
    releaseNotes: { description: 'stored on the revision' },
  },
});

export const Workflow = Type.Object({
  id: Type.String(),
  key: Type.Optional(Type.String()),
  name: Type.String(),
  description: Type.Optional(Type.String()),
  path: Type.String(),
  organizationId: Type.String(),
  nrn: Type.Optional(Type.String()),
  metadata: Type.Optional(Json),
  latestRevision: Type.Integer(),
  createdAt: DateTime,
  updatedAt: DateTime,
});

export const Revision = Type.Object({
  workflowId: Type.String(),
  revision: Type.Integer(),
  definition: Type.Union([Json, Type.Null()]),
  createdAt: DateTime,
  createdBy: Type.Optional(Type.String()),
  releaseNotes: Type.Optional(Type.String()),
  semanticVersion: Type.Optional(Type.String()),
  engineVersion: Type.String(),
  sourceFormat: Type.Optional(
    Type.Union([Type.Literal('yaml'), Type.Literal('json')], {
      description: 'present when the text it was published from is kept: GET …/revisions/{n}/source',
    }),
  ),
});

export const TriggerState = Type.Object({
  status: Type.Union([Type.Literal('pending'), Type.Literal('live'), Type.Literal('failed'), Type.Literal('inactive')]),
  pluginType: Type.String(),
  activatedAt: Type.Optional(DateTime),
  deactivatedAt: Type.Optional(DateTime),
  lastError: Type.Optional(Type.Object({ message: Type.String(), code: Type.String() })),
  runtimeMetadata: Type.Optional(Json),
});

/** Where a trigger of an alias is reached now (publish and alias-write answers). */
export const TriggerSummary = Type.Object({
  stepId: Type.String(),
  pluginType: Type.String(),
  alias: Type.String(),
  status: TriggerState.properties.status,
  webhookUrl: Type.Optional(
    Type.String({ description: 'a live webhook: the alias URL (kept across revisions while the alias is active)' }),
  ),
  schedule: Type.Optional(Type.String({ description: 'a cron trigger: its expression' })),
  timezone: Type.Optional(Type.String()),
  nextRuns: Type.Optional(Type.Array(DateTime, { description: 'a cron trigger: its next runs, as the cron dialect reads it' })),
});

export const Alias = Type.Object({
  workflowId: Type.String(),
  name: Type.String(),
  revision: Type.Integer(),
  active: Type.Boolean(),
  updatedAt: DateTime,
  updatedBy: Type.Optional(Type.String()),
  metadata: Type.Optional(Json),
  flowControl: Type.Optional(Json),
  triggerStates: Type.Record(Type.String(), TriggerState),
  /** Alias writes only (create, repoint, activate). */
  triggers: Type.Optional(Type.Array(TriggerSummary)),
});

export const ConfigWarning = Type.Object({
  code: Type.Literal('CONFIG_ENTRY_UNRESOLVED'),
  name: Type.String(),
  kind: Type.Union([Type.Literal('secret'), Type.Literal('var')]),
});

/** A definition key accepted for compatibility that has no effect here (DEFINITION_KEY_IGNORED), or another validator warning. */
export const DefinitionWarning = Type.Object({ code: Type.String(), path: Type.String(), message: Type.String() });
export const PublishWarning = Type.Union([ConfigWarning, DefinitionWarning]);

export const PublishResult = Type.Object({
  workflow: Workflow,
  revision: Revision,
  latestAlias: Type.Union([Alias, Type.Null()]),
  mode: Type.Optional(Type.Union([Type.Literal('created'), Type.Literal('overwritten'), Type.Literal('new-revision')])),
  warnings: Type.Array(PublishWarning),
  /** The `latest` alias's triggers of the published revision. */
  triggers: Type.Optional(Type.Array(TriggerSummary)),
});

export const ValidationReport = Type.Object({
  valid: Type.Boolean(),
  errors: Type.Array(Type.Object({ path: Type.String(), message: Type.String() })),
  warnings: Type.Array(PublishWarning),
});

/** The paging fields of a list response. */
export const PageFields = { page: Type.Integer(), limit: Type.Integer(), total: Type.Integer() };
export const page = <T extends ReturnType<typeof Type.Object>>(item: T) => Type.Object({ data: Type.Array(item), ...PageFields });
