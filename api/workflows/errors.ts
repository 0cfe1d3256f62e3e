/** Problem types shared by the workflow-definition routes. */
import { HttpError } from '../http/errors';

export const workflowNotFound = (ref: string): HttpError =>
  new HttpError(404, 'workflow-not-found', `No workflow "${ref}" exists in your organization.`);

export const revisionNotFound = (n: number): HttpError => new HttpError(404, 'revision-not-found', `Revision ${n} does not exist.`);

/** A revision published before sources were kept: its normalized definition is all there is. */
export const revisionSourceNotKept = (n: number): HttpError =>
  new HttpError(
    404,
    'revision-source-not-kept',
    `Revision ${n} was published before the text of a publish was kept: read its definition (GET …/revisions/${n}) instead.`,
  );
