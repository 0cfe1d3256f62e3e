/** Schedule RPCs: create, describe, update, patch (pause, unpause, trigger, backfill), delete, list. */
import type { Engine } from './engine';
import type { CallContext } from './grpc-server';
import { ServiceError, invalidArgument, notFound } from './errors';
import { L, api, enums, ms, ts } from './proto';
import { canonicalSpec, futureTimes, nextTime } from './calendar';
import type { ScheduleRunner, ScheduleState } from './schedule-runner';
import { status } from '@grpc/grpc-js';
import { typedSearchAttributes } from './history';

import wf = api.workflowservice.v1;

function normalise(schedule: api.schedule.v1.ISchedule | null | undefined): api.schedule.v1.ISchedule {
  if (!schedule?.action?.startWorkflow) throw invalidArgument('Schedule action must start a workflow.');
  const overlap = schedule.policies?.overlapPolicy || enums.ScheduleOverlapPolicy.SCHEDULE_OVERLAP_POLICY_SKIP;
  return {
    spec: canonicalSpec(schedule.spec ?? {}),
    action: schedule.action,
    policies: {
      overlapPolicy: overlap,
      catchupWindow:
        schedule.policies?.catchupWindow && ms(schedule.policies.catchupWindow) > 0
          ? schedule.policies.catchupWindow
          : { seconds: L(365 * 86_400) },
      pauseOnFailure: schedule.policies?.pauseOnFailure ?? false,
    },
    state: {
      paused: schedule.state?.paused ?? false,
      notes: schedule.state?.notes ?? '',
      limitedActions: schedule.state?.limitedActions ?? false,
      remainingActions: L(Number(schedule.state?.remainingActions ?? 0)),
    },
  };
}

export function scheduleHandlers(
  engine: Engine,
  runner: ScheduleRunner,
): Record<string, (req: never, ctx: CallContext) => Promise<object> | object> {
  const find = (namespace: string | null | undefined, id: string | null | undefined): ScheduleState => {
    engine.namespaces.get(namespace ?? '');
    const state = runner.schedules.get(runner.key(namespace ?? '', id ?? ''));
    if (!state) throw notFound(`schedule "${id ?? ''}" not found`);
    return state;
  };
  const info = (state: ScheduleState): api.schedule.v1.IScheduleInfo => ({
    actionCount: L(state.actionCount),
    missedCatchupWindow: L(state.missedCatchupWindow),
    overlapSkipped: L(state.overlapSkipped),
    bufferDropped: L(state.bufferDropped),
    bufferSize: L(state.buffer.length),
    runningWorkflows: state.running.map((r) => ({ workflowId: r.workflowId, runId: r.runId })),
    recentActions: state.recentActions,
    futureActionTimes: state.schedule.state?.paused
      ? []
      : futureTimes(state.schedule.spec ?? {}, Math.max(engine.now(), state.lastNominal), 10),
    createTime: ts(state.createTime),
    updateTime: state.updateTime ? ts(state.updateTime) : undefined,
  });
  return {
    CreateSchedule: (req: wf.ICreateScheduleRequest): wf.ICreateScheduleResponse => {
      const namespace = req.namespace ?? '';
      engine.namespaces.get(namespace);
      if (!req.scheduleId) throw invalidArgument('ScheduleId is not set on request.');
      const problem = engine.namespaces.searchAttributeProblem(
        namespace,
        req.schedule?.action?.startWorkflow?.searchAttributes?.indexedFields,
      );
      if (problem) throw invalidArgument(problem);
      const key = runner.key(namespace, req.scheduleId);
      if (runner.schedules.has(key)) throw new ServiceError(status.ALREADY_EXISTS, `schedule "${req.scheduleId}" is already registered`);
      const now = engine.now();
      const state: ScheduleState = {
        id: req.scheduleId,
        namespace,
        schedule: normalise(req.schedule),
        memo: req.memo,
        searchAttributes: req.searchAttributes,
        createTime: now,
        updateTime: 0,
        conflictToken: 1,
        actionCount: 0,
        missedCatchupWindow: 0,
        overlapSkipped: 0,
        bufferDropped: 0,
        buffer: [],
        running: [],
        recentActions: [],
        lastNominal: now,
        deleted: false,
      };
      runner.schedules.set(key, state);
      applyPatch(runner, state, req.initialPatch);
      runner.arm(state);
      return { conflictToken: Buffer.from(String(state.conflictToken)) };
    },
    DescribeSchedule: (req: wf.IDescribeScheduleRequest): wf.IDescribeScheduleResponse => {
      const state = find(req.namespace, req.scheduleId);
      return {
        schedule: state.schedule,
        info: info(state),
        memo: state.memo,
        searchAttributes: state.searchAttributes,
        conflictToken: Buffer.from(String(state.conflictToken)),
      };
    },
    UpdateSchedule: (req: wf.IUpdateScheduleRequest): wf.IUpdateScheduleResponse => {
      const state = find(req.namespace, req.scheduleId);
      if (req.conflictToken?.length && Buffer.from(req.conflictToken).toString() !== String(state.conflictToken)) {
        throw new ServiceError(status.FAILED_PRECONDITION, 'conflict token mismatch');
      }
      state.schedule = normalise(req.schedule);
      if (req.searchAttributes) state.searchAttributes = req.searchAttributes;
      state.updateTime = engine.now();
      state.conflictToken++;
      state.lastNominal = Math.max(state.lastNominal, engine.now());
      runner.arm(state);
      return {};
    },
    PatchSchedule: (req: wf.IPatchScheduleRequest): wf.IPatchScheduleResponse => {
      const state = find(req.namespace, req.scheduleId);
      applyPatch(runner, state, req.patch);
      state.updateTime = engine.now();
      state.conflictToken++;
      runner.arm(state);
      return {};
    },
    DeleteSchedule: (req: wf.IDeleteScheduleRequest): wf.IDeleteScheduleResponse => {
      const state = find(req.namespace, req.scheduleId);
      state.deleted = true;
      state.timer?.cancel();
      runner.schedules.delete(runner.key(state.namespace, state.id));
      return {};
    },
    ListSchedules: (req: wf.IListSchedulesRequest): wf.IListSchedulesResponse => {
      const namespace = req.namespace ?? '';
      engine.namespaces.get(namespace);
      const all = [...runner.schedules.values()].filter((s) => s.namespace === namespace).sort((a, b) => a.id.localeCompare(b.id));
      const offset = req.nextPageToken?.length ? Number(Buffer.from(req.nextPageToken).toString()) || 0 : 0;
      const size = req.maximumPageSize && req.maximumPageSize > 0 ? req.maximumPageSize : 1000;
      const page = all.slice(offset, offset + size);
      return {
        schedules: page.map((state) => ({
          scheduleId: state.id,
          memo: state.memo,
          searchAttributes: { indexedFields: typedSearchAttributes(state.searchAttributes?.indexedFields ?? {}) },
          info: {
            spec: state.schedule.spec,
            workflowType: state.schedule.action?.startWorkflow?.workflowType,
            notes: state.schedule.state?.notes,
            paused: state.schedule.state?.paused,
            recentActions: state.recentActions.slice(-5),
            futureActionTimes: state.schedule.state?.paused
              ? []
              : futureTimes(state.schedule.spec ?? {}, Math.max(engine.now(), state.lastNominal), 5),
          },
        })),
        nextPageToken: offset + page.length < all.length ? Buffer.from(String(offset + page.length)) : undefined,
      };
    },
  };
}

function applyPatch(runner: ScheduleRunner, state: ScheduleState, patch: api.schedule.v1.ISchedulePatch | null | undefined): void {
  if (!patch) return;
  const scheduleState = (state.schedule.state ??= {});
  if (patch.pause) {
    scheduleState.paused = true;
    scheduleState.notes = patch.pause;
  }
  if (patch.unpause) {
    scheduleState.paused = false;
    scheduleState.notes = patch.unpause;
  }
  const now = runner.engine.now();
  if (patch.triggerImmediately) {
    runner.act(state, now, patch.triggerImmediately.overlapPolicy || runner.overlapOf(state), true);
  }
  for (const backfill of patch.backfillRequest ?? []) {
    const spec = state.schedule.spec ?? {};
    const end = ms(backfill.endTime);
    let t = ms(backfill.startTime) - 1;
    for (let i = 0; i < 1000; i++) {
      const next = nextTime(spec, t);
      if (next === undefined || next > end) break;
      runner.act(state, next, backfill.overlapPolicy || runner.overlapOf(state), false);
      t = next;
    }
  }
}
