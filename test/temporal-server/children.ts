/** Child workflows and the external signal / cancel commands, run after the parent's task commits. */
import { randomUUID } from 'node:crypto';
import type { Engine } from './engine';
import { dur, EventType, Status, api, enums, ms, ts, L } from './proto';
import { createRun, requestCancelRun, signalRun } from './lifecycle';
import type { WorkflowRun } from './run';

type InitiatedAttrs = api.history.v1.IStartChildWorkflowExecutionInitiatedEventAttributes;

export function startChild(engine: Engine, parent: WorkflowRun, initiatedEventId: number, attrs: InitiatedAttrs): void {
  if (!parent.isOpen) return;
  const namespace = attrs.namespace || parent.namespace;
  const workflowId = attrs.workflowId ?? '';
  const existing = engine.currentRun(namespace, workflowId);
  const Reuse = enums.WorkflowIdReusePolicy;
  const reuse = attrs.workflowIdReusePolicy ?? 0;
  const blocked =
    existing !== undefined &&
    (existing.isOpen ||
      reuse === Reuse.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE ||
      (reuse === Reuse.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE_FAILED_ONLY &&
        existing.status === Status.WORKFLOW_EXECUTION_STATUS_COMPLETED));
  if (blocked || !engine.namespaces.has(namespace)) {
    engine.deliver(parent, {
      write: () =>
        engine.addEvent(parent, EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_FAILED, {
          startChildWorkflowExecutionFailedEventAttributes: {
            namespace,
            workflowId,
            workflowType: attrs.workflowType,
            cause: enums.StartChildWorkflowExecutionFailedCause.START_CHILD_WORKFLOW_EXECUTION_FAILED_CAUSE_WORKFLOW_ALREADY_EXISTS,
            control: attrs.control,
            initiatedEventId: L(initiatedEventId),
            workflowTaskCompletedEventId: attrs.workflowTaskCompletedEventId,
          },
        }),
    });
    return;
  }
  const executionMs = ms(attrs.workflowExecutionTimeout);
  let runMs = ms(attrs.workflowRunTimeout);
  if (executionMs > 0 && (runMs === 0 || runMs > executionMs)) runMs = executionMs;
  const child = createRun(engine, {
    namespace,
    workflowId,
    requestId: randomUUID(),
    parent: { namespace: parent.namespace, runId: parent.runId, workflowId: parent.workflowId, initiatedEventId },
    attrs: {
      workflowType: attrs.workflowType,
      taskQueue: attrs.taskQueue,
      input: attrs.input,
      header: attrs.header,
      workflowExecutionTimeout: executionMs > 0 ? attrs.workflowExecutionTimeout : undefined,
      workflowRunTimeout: runMs > 0 ? dur(runMs) : undefined,
      workflowTaskTimeout: attrs.workflowTaskTimeout,
      retryPolicy: attrs.retryPolicy,
      cronSchedule: attrs.cronSchedule,
      memo: attrs.memo,
      searchAttributes: attrs.searchAttributes,
      priority: attrs.priority,
      parentWorkflowNamespace: parent.namespace,
      parentWorkflowExecution: parent.execution,
      parentInitiatedEventId: L(initiatedEventId),
      rootWorkflowExecution: parent.startedAttrs.rootWorkflowExecution ?? parent.execution,
      workflowExecutionExpirationTime: executionMs > 0 ? ts(engine.now() + executionMs) : undefined,
      attempt: 1,
    },
  });
  const state = {
    initiatedEventId,
    startedEventId: 0,
    namespace,
    workflowId,
    runId: child.runId,
    workflowType: attrs.workflowType?.name ?? '',
    parentClosePolicy: attrs.parentClosePolicy ?? enums.ParentClosePolicy.PARENT_CLOSE_POLICY_TERMINATE,
  };
  parent.children.set(initiatedEventId, state);
  engine.deliver(parent, {
    write: () => {
      state.startedEventId = engine.addEvent(parent, EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_STARTED, {
        childWorkflowExecutionStartedEventAttributes: {
          namespace,
          initiatedEventId: L(initiatedEventId),
          workflowExecution: child.execution,
          workflowType: attrs.workflowType,
          header: attrs.header,
        },
      });
    },
  });
}

export function signalExternal(
  engine: Engine,
  sender: WorkflowRun,
  initiatedEventId: number,
  attrs: api.history.v1.ISignalExternalWorkflowExecutionInitiatedEventAttributes,
): void {
  const namespace = attrs.namespace || sender.namespace;
  const target =
    engine.runs.get(attrs.workflowExecution?.runId ?? '') ?? engine.currentRun(namespace, attrs.workflowExecution?.workflowId ?? '');
  const ok = target !== undefined && target.isOpen && target.workflowId === attrs.workflowExecution?.workflowId;
  if (ok) {
    signalRun(engine, target, {
      signalName: attrs.signalName ?? '',
      input: attrs.input,
      header: attrs.header,
      identity: '',
      external: sender.execution,
    });
  }
  engine.deliver(sender, {
    write: () => {
      if (ok) {
        engine.addEvent(sender, EventType.EVENT_TYPE_EXTERNAL_WORKFLOW_EXECUTION_SIGNALED, {
          externalWorkflowExecutionSignaledEventAttributes: {
            initiatedEventId: L(initiatedEventId),
            namespace,
            workflowExecution: target.execution,
            control: attrs.control,
          },
        });
      } else {
        engine.addEvent(sender, EventType.EVENT_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_FAILED, {
          signalExternalWorkflowExecutionFailedEventAttributes: {
            initiatedEventId: L(initiatedEventId),
            namespace,
            workflowExecution: attrs.workflowExecution,
            control: attrs.control,
            cause:
              enums.SignalExternalWorkflowExecutionFailedCause
                .SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_FAILED_CAUSE_EXTERNAL_WORKFLOW_EXECUTION_NOT_FOUND,
            workflowTaskCompletedEventId: attrs.workflowTaskCompletedEventId,
          },
        });
      }
    },
  });
}

export function cancelExternal(
  engine: Engine,
  sender: WorkflowRun,
  initiatedEventId: number,
  attrs: api.history.v1.IRequestCancelExternalWorkflowExecutionInitiatedEventAttributes,
): void {
  const namespace = attrs.namespace || sender.namespace;
  const target =
    engine.runs.get(attrs.workflowExecution?.runId ?? '') ?? engine.currentRun(namespace, attrs.workflowExecution?.workflowId ?? '');
  const ok = target !== undefined && target.isOpen && target.workflowId === attrs.workflowExecution?.workflowId;
  if (ok) requestCancelRun(engine, target, attrs.reason ?? '', '', { initiatedEventId, execution: sender.execution });
  engine.deliver(sender, {
    write: () => {
      if (ok) {
        engine.addEvent(sender, EventType.EVENT_TYPE_EXTERNAL_WORKFLOW_EXECUTION_CANCEL_REQUESTED, {
          externalWorkflowExecutionCancelRequestedEventAttributes: {
            initiatedEventId: L(initiatedEventId),
            namespace,
            workflowExecution: target.execution,
          },
        });
      } else {
        engine.addEvent(sender, EventType.EVENT_TYPE_REQUEST_CANCEL_EXTERNAL_WORKFLOW_EXECUTION_FAILED, {
          requestCancelExternalWorkflowExecutionFailedEventAttributes: {
            initiatedEventId: L(initiatedEventId),
            namespace,
            workflowExecution: attrs.workflowExecution,
            control: attrs.control,
            cause:
              enums.CancelExternalWorkflowExecutionFailedCause
                .CANCEL_EXTERNAL_WORKFLOW_EXECUTION_FAILED_CAUSE_EXTERNAL_WORKFLOW_EXECUTION_NOT_FOUND,
            workflowTaskCompletedEventId: attrs.workflowTaskCompletedEventId,
          },
        });
      }
    },
  });
}
