/** The answer of POST …/validate: the errors and warnings publishing the body would answer, without saving it. */
import { definitionBytesIssue, validateDefinition } from '../../workflows/engine';
import { canonicalNrn, organizationNrn } from '../access/nrn';
import { declaredSchemaErrors } from './declared-schemas';
import type { WorkflowDeps } from './deps';
import { boundReferences, configWarnings } from './publish';
import { typeScriptErrors } from './typescript-scripts';

export async function validationReport(deps: WorkflowDeps, body: unknown, organizationId: string, workflowId: string | null) {
  const result = validateDefinition(body, { limits: deps.limits, plugins: deps.plugins });
  const tooLarge = result.definition && definitionBytesIssue(JSON.stringify(result.definition), deps.limits);
  if (!result.definition || tooLarge) return { valid: false, errors: tooLarge ? [tooLarge] : result.errors, warnings: [] };
  const schemaErrors = [...declaredSchemaErrors(result.definition, body), ...typeScriptErrors(result.definition, body)];
  if (schemaErrors.length > 0) return { valid: false, errors: schemaErrors, warnings: [] };
  // Entries within the NRN the definition names (an NRN publishing would refuse reaches none).
  const nrn = result.definition.nrn === undefined ? organizationNrn(organizationId) : (canonicalNrn(result.definition.nrn) ?? '');
  const warnings = await configWarnings(
    deps.dataSource,
    organizationId,
    workflowId,
    { path: result.definition.path, nrn },
    boundReferences(result.references, result.definition),
    result.warnings,
  );
  return { valid: true, errors: [], warnings };
}
