/**
 * The facts of an execution, readable: how long it ran (ticking while it runs,
 * exact once it ended), what started it (the trigger's source, its webhook or
 * schedule details), its revision and alias, who started it, its parent, and its
 * inputs, outputs and error.
 */
import { enc, type Json } from '../api';
import { formatTime, h, link, mount, text } from '../dom';
import { duration, keyValues, maskedJson, ms, readableError } from './readable';

export interface ExecutionFacts {
  element: HTMLElement;
  render(execution: Json): void;
  /** Updates the running duration (called every second while the run is live). */
  tick(): void;
}

export function executionFacts(): ExecutionFacts {
  const element = h('section', { class: 'execution-facts', 'aria-label': 'Execution facts' });
  const took = h('span', { 'data-fact-value': 'duration' });
  let current: Json = {};

  const tick = () => {
    const start = ms(current.createdAt);
    const end = ms(current.completedAt);
    took.textContent = Number.isFinite(end) ? duration(end - start) : `${duration(Date.now() - start)} so far`;
  };
  const fact = (name: string, label: string, ...value: Array<Node | string | null>) =>
    h('div', { class: 'fact', 'data-fact': name }, h('dt', {}, label), h('dd', {}, ...value));

  const render = (execution: Json) => {
    current = execution;
    tick();
    const trigger = (execution.trigger ?? {}) as Json;
    const payload = (trigger.payload ?? {}) as Json;
    const inputs = execution.inputs as Json | undefined;
    const outputs = execution.outputs as Json | undefined;
    mount(
      element,
      h(
        'dl',
        { class: 'facts' },
        fact('duration', 'Duration', took),
        fact('trigger', 'Trigger', ...triggerText(trigger, payload)),
        fact('revision', 'Revision', `${Number(execution.revision)}`, execution.alias ? ` (alias ${text(execution.alias)})` : ''),
        fact('created-by', 'Started by', execution.createdBy ? `user ${text(execution.createdBy)}` : 'the platform (no user)'),
        execution.parentExecutionId
          ? fact(
              'parent',
              'Parent',
              link(`/console/executions/${enc(text(execution.parentExecutionId))}`, text(execution.parentExecutionId)),
            )
          : null,
        execution.correlationKey ? fact('correlation-key', 'Correlation key', h('code', {}, text(execution.correlationKey))) : null,
      ),
      execution.error
        ? h('div', { class: 'fact-block', 'data-fact': 'error' }, h('h2', {}, 'Error'), readableError(execution.error))
        : null,
      h(
        'div',
        { class: 'io' },
        h(
          'div',
          { class: 'fact-block', 'data-fact': 'inputs' },
          h('h2', {}, 'Inputs'),
          inputs && Object.keys(inputs).length > 0 ? keyValues(inputs) : h('p', { class: 'meta' }, 'None.'),
        ),
        h(
          'div',
          { class: 'fact-block', 'data-fact': 'outputs' },
          h('h2', {}, 'Outputs'),
          outputs && Object.keys(outputs).length > 0
            ? keyValues(outputs)
            : h('p', { class: 'meta' }, execution.completedAt ? 'None.' : 'Not yet: the run has not ended.'),
        ),
      ),
      Object.keys(payload).length > 0 && trigger.source !== 'manual'
        ? h('details', { class: 'trigger-payload' }, h('summary', {}, 'Trigger payload'), maskedJson(payload))
        : null,
    );
  };
  return { element, render, tick };
}

/** The trigger in words: its source and step, and what a webhook, schedule or signal carried about itself. */
function triggerText(trigger: Json, payload: Json): string[] {
  const parts = [text(trigger.source) || 'unknown'];
  if (trigger.stepId) parts.push(` (trigger step ${text(trigger.stepId)})`);
  if (trigger.source === 'cron') {
    if (payload.schedule !== undefined)
      parts.push(` · schedule ${typeof payload.schedule === 'string' ? payload.schedule : JSON.stringify(payload.schedule)}`);
    if (payload.firedAt) parts.push(` · fired ${formatTime(payload.firedAt)}`);
  } else if (trigger.source === 'webhook') {
    if (payload.method) parts.push(` · ${text(payload.method)} request`);
    if (trigger.receivedAt) parts.push(` · received ${formatTime(trigger.receivedAt)}`);
  } else if (trigger.receivedAt && trigger.source !== 'manual') {
    parts.push(` · received ${formatTime(trigger.receivedAt)}`);
  }
  const signal = trigger.signal as Json | undefined;
  if (signal?.name) parts.push(` · signal ${text(signal.name)}`);
  return parts;
}
