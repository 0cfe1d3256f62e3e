import type { Engine } from './engine';
import type { CallContext } from './grpc-server';
import type { ScheduleRunner } from './schedule-runner';
export function scheduleHandlers(_engine: Engine, _runner: ScheduleRunner): Record<string, (req: never, ctx: CallContext) => Promise<object> | object> {
  return {};
}
