/**
 * The answer of a publish (PublishResult) as JSON text. The definition was serialized once already (to store
 * it); its text is spliced in instead of serializing ~10 KB again.
 */
import type { TriggerBindingEntity } from '../../db/entities/trigger-binding';
import type { Published } from '../../db/repositories/workflow-repository';
import type { HandlerResult } from '../http/route';
import { LATEST } from './activation';
import type { PublishWarning } from './publish';
import { aliasJson, revisionJson, workflowJson } from './serialize';
import { triggerSummaries, triggersIn } from './trigger-summary';

const JSON_TYPE = { 'content-type': 'application/json; charset=utf-8' };

export interface PublishAnswer {
  published: Published;
  warnings: PublishWarning[];
  /** `created`, `new-revision` or `overwritten`; left out by POST, which only creates. */
  mode?: string;
  /** The stored text of the revision's definition, when this publish wrote it. */
  definitionJson?: string;
  /** The bindings of an active `latest` (none otherwise). */
  bindings?: TriggerBindingEntity[];
}

export function publishAnswer(status: number, answer: PublishAnswer, publicBaseUrl: string): HandlerResult {
  return { status, body: publishResultText(answer, publicBaseUrl), headers: JSON_TYPE };
}

function publishResultText(
  { published, warnings, mode, definitionJson, bindings = [] }: PublishAnswer,
  publicBaseUrl: string,
): HandlerResult['body'] {
  const latestAlias = aliasJson(published.latestAlias, bindings, publicBaseUrl, published.revision.definition.triggers);
  const triggers = triggerSummaries(LATEST, triggersIn(published.revision.definition), bindings, publicBaseUrl);
  const revision = revisionJson(published.revision);
  if (definitionJson === undefined)
    return { workflow: workflowJson(published.workflow), revision, latestAlias, ...(mode ? { mode } : {}), warnings, triggers };
  const { definition: _definition, ...rest } = revision;
  return (
    `{"workflow":${JSON.stringify(workflowJson(published.workflow))},"revision":${JSON.stringify(rest).slice(0, -1)},"definition":${definitionJson}}` +
    `,"latestAlias":${JSON.stringify(latestAlias)}${mode ? `,"mode":${JSON.stringify(mode)}` : ''},"warnings":${JSON.stringify(warnings)}` +
    `,"triggers":${JSON.stringify(triggers)}}`
  );
}
