// A stub module for the command line: `platform-workflow run|validate … --stub acme-deploy=examples/approval/acme-deploy-stub.cjs`.
// It stands in for the vendor plugin `acme-deploy` until the server has it.
module.exports = {
  kind: 'module',
  handler: ({ config }) => ({ deployed: config.service, version: 'stub' }),
};
