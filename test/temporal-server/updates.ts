/**
 * Workflow updates: admitted by the frontend, delivered to the worker as protocol
 * messages on a workflow task, accepted/rejected/completed through the messages the
 * worker returns with its completion.
 */
import type { Engine } from './engine';
import { ServiceError, invalidArgument, notFound, workflowCompleted } from './errors';
import { EventType, api, enums, packAny, unpackAny, type ProtocolMessage, L } from './proto';
import type { WorkflowRun } from './run';

const Stage = enums.UpdateWorkflowExecutionLifecycleStage;
type Stage = enums.UpdateWorkflowExecutionLifecycleStage;

export interface UpdateState {
  id: string;
  request: api.update.v1.IRequest;
  stage: Stage;
  acceptedEventId: number;
  outcome?: api.update.v1.IOutcome;
}

type UpdateRequest = api.workflowservice.v1.IUpdateWorkflowExecutionRequest;
type UpdateResponse = api.workflowservice.v1.IUpdateWorkflowExecutionResponse;

export async function updateWorkflow(
  engine: Engine,
  req: UpdateRequest,
  waitMs: number,
  onCancel: (cb: () => void) => void,
): Promise<UpdateResponse> {
  const namespace = req.namespace ?? '';
  const run = engine.getRun(namespace, req.workflowExecution?.workflowId, req.workflowExecution?.runId);
  if (req.firstExecutionRunId && run.firstRunId !== req.firstExecutionRunId) throw notFound('workflow execution not found');
  const request = req.request ?? {};
  const updateId = request.meta?.updateId ?? '';
  if (!updateId) throw invalidArgument('Update id is not set on request.');
  if (!request.input?.name) throw invalidArgument('Update name is not set on request.');
  let update = run.updates.get(updateId);
  if (!update) {
    if (!run.isOpen) throw workflowCompleted();
    update = { id: updateId, request, stage: Stage.UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_ADMITTED, acceptedEventId: 0 };
    run.updates.set(updateId, update);
    engine.scheduleWft(run, true);
  }
  return waitForStage(
    run,
    update,
    req.waitPolicy?.lifecycleStage ?? Stage.UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_ACCEPTED,
    waitMs,
    onCancel,
  );
}

export async function pollUpdate(
  engine: Engine,
  req: api.workflowservice.v1.IPollWorkflowExecutionUpdateRequest,
  waitMs: number,
  onCancel: (cb: () => void) => void,
): Promise<UpdateResponse> {
  const ref = req.updateRef;
  const namespace = req.namespace ?? '';
  const updateId = ref?.updateId ?? '';
  const candidates = ref?.workflowExecution?.runId
    ? [engine.getRun(namespace, ref.workflowExecution.workflowId, ref.workflowExecution.runId)]
    : [...(engine.executions.get(`${namespace}\u0000${ref?.workflowExecution?.workflowId ?? ''}`) ?? [])].reverse();
  for (const run of candidates) {
    const update = run.updates.get(updateId);
    if (update)
      return waitForStage(
        run,
        update,
        req.waitPolicy?.lifecycleStage ?? Stage.UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_COMPLETED,
        waitMs,
        onCancel,
      );
  }
  throw notFound(`update ${updateId} not found`);
}

async function waitForStage(
  run: WorkflowRun,
  update: UpdateState,
  wanted: Stage,
  waitMs: number,
  onCancel: (cb: () => void) => void,
): Promise<UpdateResponse> {
  const deadline = Date.now() + waitMs;
  let cancelled = false;
  onCancel(() => {
    cancelled = true;
  });
  for (;;) {
    if (update.stage >= wanted || update.stage === Stage.UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_COMPLETED) break;
    if (!run.isOpen) throw workflowCompleted();
    const remaining = deadline - Date.now();
    if (remaining <= 0 || cancelled) break;
    await run.waitForChange(remaining, onCancel);
  }
  return {
    updateRef: { workflowExecution: run.execution, updateId: update.id },
    stage: update.stage,
    outcome: update.stage === Stage.UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_COMPLETED ? update.outcome : undefined,
  };
}

/** Protocol messages for the updates still waiting for the worker. */
export function updateMessages(run: WorkflowRun, startedEventId: number, deliveredIds: string[]): ProtocolMessage[] {
  const messages: ProtocolMessage[] = [];
  for (const update of run.updates.values()) {
    if (update.stage !== Stage.UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_ADMITTED) continue;
    deliveredIds.push(update.id);
    messages.push({
      id: `${update.id}/request`,
      protocolInstanceId: update.id,
      eventId: L(startedEventId - 1),
      body: packAny('temporal.api.update.v1.Request', update.request),
    });
  }
  return messages;
}

export function hasUndeliveredUpdates(run: WorkflowRun, deliveredIds: string[]): boolean {
  for (const update of run.updates.values()) {
    if (update.stage === Stage.UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_ADMITTED && !deliveredIds.includes(update.id)) return true;
  }
  return false;
}

/** Applies one message from a workflow task completion; writes its event, if any. */
export function applyUpdateMessage(engine: Engine, run: WorkflowRun, message: ProtocolMessage): void {
  const body = unpackAny(message.body);
  if (!body) throw invalidArgument(`protocol message ${message.id ?? ''} has no body`);
  const update = run.updates.get(message.protocolInstanceId ?? '');
  if (!update) throw invalidArgument(`unknown protocol instance ${message.protocolInstanceId ?? ''}`);
  switch (body.typeName) {
    case 'temporal.api.update.v1.Acceptance': {
      const acceptance = body.value as api.update.v1.IAcceptance;
      update.acceptedEventId = engine.addEvent(run, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED, {
        workflowExecutionUpdateAcceptedEventAttributes: {
          protocolInstanceId: update.id,
          acceptedRequestMessageId: acceptance.acceptedRequestMessageId,
          acceptedRequestSequencingEventId: acceptance.acceptedRequestSequencingEventId,
          acceptedRequest: acceptance.acceptedRequest ?? update.request,
        },
      });
      update.stage = Stage.UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_ACCEPTED;
      break;
    }
    case 'temporal.api.update.v1.Rejection': {
      const rejection = body.value as api.update.v1.IRejection;
      update.outcome = { failure: rejection.failure };
      update.stage = Stage.UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_COMPLETED;
      break;
    }
    case 'temporal.api.update.v1.Response': {
      const response = body.value as api.update.v1.IResponse;
      engine.addEvent(run, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED, {
        workflowExecutionUpdateCompletedEventAttributes: {
          meta: response.meta ?? { updateId: update.id },
          acceptedEventId: L(update.acceptedEventId),
          outcome: response.outcome,
        },
      });
      update.outcome = response.outcome ?? undefined;
      update.stage = Stage.UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_COMPLETED;
      break;
    }
    default:
      throw new ServiceError(3, `unsupported protocol message body ${body.typeName}`);
  }
}
