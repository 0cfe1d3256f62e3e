/**
 * The bare workers' activity (bare-temporal-workflows.ts): the project's http-request step's call, written as
 * a bare Temporal user would write it, with Node's fetch.
 */
import type { BareActivities } from './bare-temporal-workflows';

export const bareActivities: BareActivities = {
  async call(url: string): Promise<unknown> {
    const res = await fetch(url);
    if (!res.ok) throw new Error(`GET ${url}: ${res.status}`);
    return res.json();
  },
};
