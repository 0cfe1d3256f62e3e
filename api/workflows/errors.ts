/** Problem types shared by the workflow-definition routes. */
import { HttpError } from '../http/errors';

export const workflowNotFound = (ref: string): HttpError =>
  new HttpError(404, 'workflow-not-found', `No workflow "${ref}" exists in your organization.`);
