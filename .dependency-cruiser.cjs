// The house's layering (shared/DESIGN.md §2), checked by `npm run lint`:
// imports point down, no circles. Floors, top to bottom:
//   startup/, bin/                      anything below
//   kit/                                workflows/engine, activities/plugins (and the egress and secrets helpers they use), config;
//                                       kit/temporal/ also the worker, startup/temporal and activity types
//   api/                                executions, db, workflows/engine, config
//   worker/                             activities, workflows, config
//   activities/                         executions, db, workflows/engine (types of workflows/*), config
//   executions/                         db, workflows/engine, workflows/messages, config
//   workflows/                          workflows/engine; activities as types only
//   db/                                 config
//   workflows/engine/                   nothing of ours
//   config/                             nothing of ours (the ground floor: config, the logger)
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'Import circles make modules impossible to read, test or load alone. The Temporal stand-in (test infrastructure) still has some between its engine and its run state.',
      from: { pathNot: '^test/temporal-server/' },
      to: { circular: true },
    },
    {
      name: 'console-talks-http-only',
      severity: 'error',
      comment: 'The web console (browser code) reaches the service over HTTP only (DESIGN.md).',
      from: { path: '^console/' },
      to: { path: '^(api|activities|bin|config|db|executions|startup|worker|workflows|test|bench)/' },
    },
    {
      name: 'config-is-the-ground-floor',
      severity: 'error',
      from: { path: '^config/' },
      to: { path: '^(api|activities|bin|db|executions|kit|startup|worker|workflows|test|bench|examples)/' },
    },
    {
      name: 'engine-is-pure',
      severity: 'error',
      comment: 'The engine runs in the Temporal sandbox and in the API: it imports nothing of ours.',
      from: { path: '^workflows/engine/' },
      to: { path: '^(api|activities|bin|config|db|executions|startup|worker|test|bench)/|^workflows/(?!engine/)' },
    },
    {
      name: 'the-engine-has-one-door',
      severity: 'error',
      comment: 'Outside the engine, import workflows/engine (its index), never its files.',
      from: { path: '^', pathNot: '^workflows/engine/' },
      to: { path: '^workflows/engine/', pathNot: '^workflows/engine/index\\.ts$' },
    },
    {
      name: 'db-imports-config-only',
      severity: 'error',
      comment: 'Besides config, the db layer may name the engine types its jsonb columns hold (type-only).',
      from: { path: '^db/' },
      to: { path: '^(api|activities|bin|executions|startup|worker|test|bench)/|^workflows/(?!engine/)' },
    },
    {
      name: 'db-imports-engine-types-only',
      severity: 'error',
      from: { path: '^db/' },
      to: { path: '^workflows/engine/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'workflows-import-the-engine',
      severity: 'error',
      comment: 'Workflow code imports activity types only, never implementations.',
      from: { path: '^workflows/' },
      to: { path: '^(api|bin|db|executions|startup|worker|test|bench)/' },
    },
    {
      name: 'workflows-import-activity-types-only',
      severity: 'error',
      from: { path: '^workflows/' },
      to: { path: '^activities/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'executions-below-api-and-activities',
      severity: 'error',
      from: { path: '^executions/' },
      to: { path: '^(api|activities|bin|startup|worker|test|bench)/' },
    },
    {
      name: 'activities-below-worker',
      severity: 'error',
      from: { path: '^activities/' },
      to: { path: '^(api|bin|startup|worker|test|bench)/' },
    },
    {
      name: 'api-below-start-up',
      severity: 'error',
      from: { path: '^api/' },
      to: { path: '^(activities|bin|startup|worker|test|bench)/' },
    },
    {
      name: 'worker-below-start-up',
      severity: 'error',
      from: { path: '^worker/' },
      to: { path: '^(api|bin|startup|test|bench)/' },
    },
    {
      name: 'kit-runs-the-engine-alone',
      severity: 'error',
      comment:
        'The kit runs workflows in-process on the engine and the effectful plugins: never the API, the database, executions, the worker or Temporal (kit/temporal/ aside).',
      from: { path: '^kit/', pathNot: '^kit/temporal/' },
      to: {
        path: '^(api|bin|db|executions|startup|worker|test|bench|examples)/|^workflows/(?!engine/)|^activities/(?!plugins/|egress/|secrets/)|(^|/)node_modules/@temporalio/(client|worker|workflow|activity|testing)/',
      },
    },
    {
      name: 'kit-temporal-runs-the-worker-alone',
      severity: 'error',
      comment:
        "The kit's executor 'temporal' runs the project's worker (its workflow bundle, in-memory activities) on a Temporal it resolves as start-up does: never the API, the database or executions.",
      from: { path: '^kit/temporal/' },
      to: { path: '^(api|bin|db|executions|test|bench|examples)/' },
    },
    {
      name: 'examples-use-the-kit',
      severity: 'error',
      comment:
        'Workflow examples show what users write: they import the kit (platform-api/kit), nothing else of ours. (examples/plugins/ shows operator plugins, written against the plugin API.)',
      from: { path: '^examples/', pathNot: '^examples/plugins/' },
      to: { path: '^(api|activities|bin|config|db|executions|startup|worker|workflows|test|bench)/' },
    },
    {
      name: 'nothing-imports-the-kit',
      severity: 'error',
      comment: 'The kit is a leaf for users (and their tests and examples), not a layer the service uses.',
      from: { path: '^(api|activities|bin|config|db|executions|startup|worker|workflows)/' },
      to: { path: '^kit/' },
    },
    {
      name: 'product-code-never-imports-tests',
      severity: 'error',
      from: { path: '^(api|activities|bin|config|db|executions|kit|startup|worker|workflows)/' },
      to: { path: '^(test|bench|examples)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist|\\.data|\\.tools)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
