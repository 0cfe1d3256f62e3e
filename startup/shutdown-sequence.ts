/**
 * What a process started, stopped in reverse order of start: a step that fails
 * is logged and the steps after it still run. `npm start` and `npm run
 * start:cluster` shut down through it.
 */
import type { Logger } from '../config/logger';

export interface ShutdownStep {
  name: string;
  run: () => Promise<void>;
}

export class ShutdownSequence {
  private readonly steps: ShutdownStep[] = [];

  constructor(
    private readonly logger: Logger,
    private readonly failureMessage = 'shutdown step failed',
  ) {}

  /** Registers a step, right after the part it stops has started. */
  push(step: ShutdownStep): void {
    this.steps.push(step);
  }

  /** Runs every registered step once, newest first. */
  async stopAll(): Promise<void> {
    for (const step of this.steps.reverse().splice(0)) {
      try {
        await step.run();
      } catch (error) {
        this.logger.error({ err: error, step: step.name }, this.failureMessage);
      }
    }
  }
}
