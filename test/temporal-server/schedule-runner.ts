import type { Engine } from './engine';
export class ScheduleRunner {
  constructor(readonly engine: Engine) {}
  stop(): void {}
}
