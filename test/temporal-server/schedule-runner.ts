/**
 * Running schedules: a clock timer per schedule for its next nominal time, actions that
 * start workflows, the overlap policies, pause / limited actions / catch-up window, and
 * buffered starts released when the running workflow closes.
 */
import { randomUUID } from 'node:crypto';
import type { TimerHandle } from './clock';
import type { Engine } from './engine';
import { L, Status, api, enums, jsonPayload, ms, ts } from './proto';
import { requestCancelRun, startWorkflow, terminate } from './lifecycle';
import { nextTime } from './calendar';
import type { WorkflowRun } from './run';

const Overlap = enums.ScheduleOverlapPolicy;
type Overlap = enums.ScheduleOverlapPolicy;

export interface ScheduleState {
  id: string;
  namespace: string;
  schedule: api.schedule.v1.ISchedule;
  memo?: api.common.v1.IMemo | null;
  searchAttributes?: api.common.v1.ISearchAttributes | null;
  createTime: number;
  updateTime: number;
  conflictToken: number;
  actionCount: number;
  missedCatchupWindow: number;
  overlapSkipped: number;
  bufferDropped: number;
  /** Nominal times waiting for the running workflow to close (BUFFER_ONE/ALL, CANCEL_OTHER). */
  buffer: Array<{ nominal: number; overlap: Overlap; manual: boolean }>;
  /** Tracked running workflows (first run ids). */
  running: Array<{ workflowId: string; runId: string }>;
  recentActions: api.schedule.v1.IScheduleActionResult[];
  lastNominal: number;
  timer?: TimerHandle;
  deleted: boolean;
}

export class ScheduleRunner {
  readonly schedules = new Map<string, ScheduleState>();
  private readonly onClose = (run: WorkflowRun): void => this.runClosed(run);

  constructor(readonly engine: Engine) {
    engine.closeListeners.add(this.onClose);
  }

  key(namespace: string, id: string): string {
    return `${namespace}\u0000${id}`;
  }

  overlapOf(state: ScheduleState): Overlap {
    return state.schedule.policies?.overlapPolicy || Overlap.SCHEDULE_OVERLAP_POLICY_SKIP;
  }

  /** (Re)arms the timer for the next nominal time. */
  arm(state: ScheduleState): void {
    state.timer?.cancel();
    state.timer = undefined;
    if (state.deleted) return;
    const next = nextTime(state.schedule.spec ?? {}, Math.max(state.lastNominal, this.engine.now()));
    if (next === undefined) return;
    state.timer = this.engine.clock.at(next, () => {
      state.lastNominal = next;
      this.fire(state, next);
      this.arm(state);
    });
  }

  private fire(state: ScheduleState, nominal: number): void {
    if (state.schedule.state?.paused) return;
    const catchupMs = ms(state.schedule.policies?.catchupWindow) || 365 * 86_400_000;
    if (this.engine.now() - nominal > Math.max(catchupMs, 10_000)) {
      state.missedCatchupWindow++;
      return;
    }
    this.act(state, nominal, this.overlapOf(state), false);
  }

  private openRunning(state: ScheduleState): WorkflowRun[] {
    const open: WorkflowRun[] = [];
    state.running = state.running.filter((entry) => {
      const run = this.engine.currentRun(state.namespace, entry.workflowId);
      if (run?.isOpen && run.firstRunId === entry.runId) {
        open.push(run);
        return true;
      }
      return false;
    });
    return open;
  }

  /** Takes (or defers, or skips) one action for `nominal` under `overlap`. */
  act(state: ScheduleState, nominal: number, overlap: Overlap, manual: boolean): void {
    const limited = state.schedule.state?.limitedActions === true;
    if (limited && Number(state.schedule.state?.remainingActions ?? 0) <= 0) return;
    const running = overlap === Overlap.SCHEDULE_OVERLAP_POLICY_ALLOW_ALL ? [] : this.openRunning(state);
    if (running.length > 0) {
      switch (overlap) {
        case Overlap.SCHEDULE_OVERLAP_POLICY_BUFFER_ONE:
          if (state.buffer.length === 0) state.buffer.push({ nominal, overlap, manual });
          else state.bufferDropped++;
          return;
        case Overlap.SCHEDULE_OVERLAP_POLICY_BUFFER_ALL:
          state.buffer.push({ nominal, overlap, manual });
          return;
        case Overlap.SCHEDULE_OVERLAP_POLICY_CANCEL_OTHER:
          state.buffer = [{ nominal, overlap, manual }];
          for (const run of running) requestCancelRun(this.engine, run, 'canceled by schedule overlap policy', 'temporal-scheduler');
          return;
        case Overlap.SCHEDULE_OVERLAP_POLICY_TERMINATE_OTHER:
          for (const run of running) terminate(this.engine, run, 'terminated by schedule overlap policy', undefined, 'temporal-scheduler');
          break;
        default:
          state.overlapSkipped++;
          return;
      }
    }
    this.start(state, nominal, overlap, manual);
  }

  private start(state: ScheduleState, nominal: number, overlap: Overlap, manual: boolean): void {
    const action = state.schedule.action?.startWorkflow;
    if (!action) return;
    const nominalIso = new Date(nominal).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const workflowId = `${action.workflowId ?? state.id}-${nominalIso}`;
    const indexedFields = {
      ...(action.searchAttributes?.indexedFields ?? {}),
      TemporalScheduledStartTime: jsonPayload(nominalIso, { type: 'Datetime' }),
      TemporalScheduledById: jsonPayload(state.id, { type: 'Keyword' }),
    };
    try {
      const result = startWorkflow(this.engine, state.namespace, {
        ...action,
        workflowId,
        requestId: randomUUID(),
        identity: 'temporal-scheduler',
        searchAttributes: { indexedFields },
        workflowIdReusePolicy: manual
          ? enums.WorkflowIdReusePolicy.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE
          : enums.WorkflowIdReusePolicy.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
      });
      state.actionCount++;
      if (state.schedule.state?.limitedActions) {
        state.schedule.state.remainingActions = L(Math.max(0, Number(state.schedule.state.remainingActions ?? 0) - 1));
      }
      if (overlap !== Overlap.SCHEDULE_OVERLAP_POLICY_ALLOW_ALL) state.running.push({ workflowId, runId: result.runId });
      state.recentActions.push({
        scheduleTime: ts(nominal),
        actualTime: ts(this.engine.now()),
        startWorkflowResult: { workflowId, runId: result.runId },
        startWorkflowStatus: Status.WORKFLOW_EXECUTION_STATUS_RUNNING,
      });
      if (state.recentActions.length > 10) state.recentActions.shift();
    } catch (error) {
      console.error(`[temporal-stand-in] schedule ${state.id} could not start ${workflowId}: ${String(error)}`);
    }
  }

  private runClosed(run: WorkflowRun): void {
    if (run.nextRunId) return;
    for (const state of this.schedules.values()) {
      const index = state.running.findIndex((entry) => entry.workflowId === run.workflowId && entry.runId === run.firstRunId);
      if (index < 0) continue;
      state.running.splice(index, 1);
      for (const action of state.recentActions) {
        if (action.startWorkflowResult?.workflowId === run.workflowId && action.startWorkflowResult.runId === run.firstRunId) {
          action.startWorkflowStatus = run.status;
        }
      }
      const failed = run.status === Status.WORKFLOW_EXECUTION_STATUS_FAILED || run.status === Status.WORKFLOW_EXECUTION_STATUS_TIMED_OUT;
      if (failed && state.schedule.policies?.pauseOnFailure && state.schedule.state) {
        state.schedule.state.paused = true;
        state.schedule.state.notes = `paused: workflow ${run.workflowId} failed`;
      }
      const next = state.buffer.shift();
      if (next && !state.schedule.state?.paused) this.act(state, next.nominal, next.overlap, next.manual);
    }
  }

  stop(): void {
    for (const state of this.schedules.values()) state.timer?.cancel();
    this.engine.closeListeners.delete(this.onClose);
  }
}
