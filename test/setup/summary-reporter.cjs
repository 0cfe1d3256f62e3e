// Mocha's spec reporter plus one plain closing line, "N passed, N failed, N skipped",
// that CI tooling reads without knowing mocha's own wording. `--reporter-option lane=NAME`
// puts "NAME:" before it, so the lanes of one CI run can be told apart and summed.
const Mocha = require('mocha');

class SpecWithSummary extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    runner.once(Mocha.Runner.constants.EVENT_RUN_END, () => {
      const { passes, failures, pending } = runner.stats;
      const lane = options.reporterOptions?.lane;
      process.stdout.write(`\n${lane ? `${lane}: ` : ''}${passes} passed, ${failures} failed, ${pending} skipped\n`);
    });
  }
}

module.exports = SpecWithSummary;
