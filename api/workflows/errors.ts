/**
 * Problem types of the workflow-definition routes, as named factories: plain functions answering an
 * HttpError (docs/errors.md lists each type). Where an error is needed only on a refusal (the access
 * module's not-found), the caller passes `() => workflowNotFound(ref)`.
 */
import { HttpError, describeFieldErrors, validationFailed, type FieldError } from '../http/errors';

export const workflowNotFound = (ref: string): HttpError =>
  new HttpError(404, 'workflow-not-found', `No workflow "${ref}" exists in your organization.`);

/** The problem+json not-found of an organization-wide engine operation. */
export const organizationNotFound = (organizationId: string): HttpError =>
  new HttpError(404, 'organization-not-found', `Organization ${organizationId} does not exist or you hold no role in it.`);

export const revisionNotFound = (n: number): HttpError => new HttpError(404, 'revision-not-found', `Revision ${n} does not exist.`);

/** A revision published before sources were kept: its normalized definition is all there is. */
export const revisionSourceNotKept = (n: number): HttpError =>
  new HttpError(
    404,
    'revision-source-not-kept',
    `Revision ${n} was published before the text of a publish was kept: read its definition (GET …/revisions/${n}) instead.`,
  );

/** A trigger failure reported by trigger-registration.ts: its trigger, code and message. */
interface TriggerFailure {
  triggerId: string;
  code: string;
  message: string;
}

export const aliasNotFound = (name: string): HttpError =>
  new HttpError(404, 'alias-not-found', `No alias "${name}" exists on this workflow.`);

/** The alias a start names is missing (the workflow is named by the caller's ref). */
export const startAliasNotFound = (workflowRef: string, alias: string): HttpError =>
  new HttpError(404, 'alias-not-found', `Workflow "${workflowRef}" has no alias "${alias}".`);

/** The revision a start names is missing. */
export const startRevisionNotFound = (workflowRef: string, revision: number | undefined): HttpError =>
  new HttpError(404, 'revision-not-found', `Workflow "${workflowRef}" has no revision ${String(revision)}.`);

/** An alias pointed at a revision the workflow does not have (a 400: the body names it). */
export const aliasRevisionNotFound = (n: number): HttpError =>
  new HttpError(400, 'revision-not-found', `Revision ${n} does not exist.`, {
    errors: [{ path: '/revision', message: 'no such revision' }],
  });

export const aliasReserved = (verb: 'set' | 'deleted'): HttpError =>
  new HttpError(400, 'alias-reserved', `The alias "latest" is maintained automatically and cannot be ${verb}.`);

export const aliasExists = (name: string): HttpError =>
  new HttpError(409, 'alias-exists', `Alias "${name}" already exists; use PUT to repoint it.`);

export const aliasActive = (name: string): HttpError =>
  new HttpError(409, 'alias-active', `Deactivate alias "${name}" before deleting it.`);

export const triggerActivationFailed = (failures: TriggerFailure[]): HttpError => {
  const failed = failures.filter((f) => f.code !== 'ACTIVATION_ROLLED_BACK');
  return new HttpError(
    502,
    'trigger-activation-failed',
    `Activation was rolled back: ${failed.map((f) => `trigger "${f.triggerId}" (${f.code}): ${f.message}`).join('; ')}`,
    { errors: failed.map((f) => ({ path: `/triggerStates/${f.triggerId}`, message: `${f.code}: ${f.message}` })) },
  );
};

export const aliasNameInvalid = (path: string, pattern: RegExp): HttpError =>
  new HttpError(400, 'validation_failed', 'Alias names are 1-63 letters, digits, ".", "_" or "-".', {
    errors: [{ path, message: `must match ${pattern.source}` }],
  });

export const definitionInvalid = (errors: FieldError[]): HttpError =>
  new HttpError(400, 'graph-invalid', `The workflow definition is invalid: ${describeFieldErrors(errors)}`, { errors });

/** A definition's `nrn` outside the caller's organization, or naming no one resource. */
export const nrnOutsideOrganization = (message: string): HttpError =>
  new HttpError(400, 'nrn-outside-organization', `The workflow definition is invalid: ${message}.`, {
    errors: [{ path: '/nrn', message }],
  });

export const definitionEnvelope = (): HttpError =>
  new HttpError(
    400,
    'definition-envelope',
    'The body is wrapped in a {"definition": …} envelope: send the definition itself as the body, ' +
      'with its name, steps and connections at the top level (a definition has no "definition" field).',
    { errors: [{ path: '/definition', message: 'send this object as the body, without the envelope' }] },
  );

/** A body `key` other than the workflow's (an upsert by key or id). */
export const bodyKeyDiffers = (key: string | null): HttpError =>
  validationFailed(
    [{ path: '/key', message: key === null ? 'must be left out: the workflow has no key' : `must equal the workflow's key ("${key}")` }],
    undefined,
    'graph-invalid',
  );

/** Grants changed under a publish three times in a row, or the workflow changed between its reads. */
export const publishConflict = (what: 'grants' | 'workflow'): HttpError =>
  new HttpError(
    409,
    'publish-conflict',
    what === 'grants'
      ? 'Your grants changed while publishing; retry the request.'
      : 'The workflow changed while publishing; retry the request.',
  );

export const workflowKeyConflict = (key: string | null): HttpError =>
  new HttpError(409, 'workflow-key-conflict', `A workflow with key "${key}" already exists.`);

/** A POST whose key another workflow holds, to a caller who may not read that workflow: no details of it. */
export const workflowKeyForbidden = (key: string | null): HttpError =>
  new HttpError(403, 'forbidden', `The key "${key}" cannot be used: you do not have permission on the workflow that holds it.`);

export const workflowHasActiveAlias = (): HttpError =>
  new HttpError(409, 'workflow-has-active-alias', 'Deactivate every active alias before deleting the workflow.');
