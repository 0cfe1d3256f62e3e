/**
 * A wait's declared answer (issue 42): a `signal-wait` step may say who may
 * answer and what, in its config: `form` (a JSON Schema for the payload),
 * `title` and `description` (for the person; templates rendered as text),
 * `approvers` (`{roles, users, nrn}`), `excludeStarter`, `required` and
 * `notify`. The workflow keeps it with the wait and counts approvals; the
 * API's approval gate enforces who and what (Ajv cannot run here, so the
 * form is compiled at publish and checked at the signal endpoint).
 *
 * Everything here is data from a definition or a run: bounded, never evaluated.
 */
import { stringify } from '../evaluate';
import { isTemplate, type PropertySchema, type SchemaIssue } from '../config-schema';
import { join } from '../pointer';
import type { WaitAnswer } from '../runtime/types';

/** The config keys that declare an answer; any of them makes the wait one. */
export const ANSWER_KEYS = ['form', 'title', 'description', 'approvers', 'excludeStarter', 'required', 'notify'] as const;

export const ANSWER_LIMITS = {
  titleChars: 200,
  descriptionChars: 4000,
  roles: 20,
  users: 50,
  required: 20,
  formBytes: 16_384,
  urlChars: 2000,
  headers: 20,
  headerChars: 1000,
} as const;

const USER_ID = /^[0-9]{1,19}$/;
const ROLE_SLUG = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/** The descriptor's view of the keys (the shape; {@link checkDeclaredAnswer} checks the rest). */
export const ANSWER_CONFIG: Readonly<Record<string, PropertySchema>> = Object.freeze({
  form: { type: 'object', description: 'a JSON Schema for the answer (a boolean `approved` gives Approve / Reject)' },
  title: { type: 'string', description: 'what the person is asked (templates rendered as text)' },
  description: { type: 'string', description: 'context for the person (templates rendered as text)' },
  approvers: {
    type: 'object',
    description: 'who may answer: roles held on `nrn` (default: the workflow NRN), or users by id',
    properties: { roles: { type: 'array', items: { type: 'string' } }, users: { type: 'array' }, nrn: { type: 'string' } },
  },
  excludeStarter: { type: 'boolean', description: 'four eyes: the user who started the run may not answer' },
  required: { type: 'integer', minimum: 1, maximum: ANSWER_LIMITS.required, description: 'distinct approvals needed (default 1)' },
  notify: {
    type: 'object',
    description: 'an HTTP POST when the run starts waiting (through the egress rules), with a link to the answer page',
    properties: { url: { type: 'string' }, headers: { type: 'object' } },
    required: ['url'],
  },
});

const isMap = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Whether the step's config declares an answer. */
export function declaresAnswer(config: Record<string, unknown>): boolean {
  return ANSWER_KEYS.some((key) => config[key] !== undefined && config[key] !== null);
}

/** Publish: what the descriptor's small schema language cannot say (sizes, ids, slugs). Templates are checked at run time. */
export function checkDeclaredAnswer(config: Record<string, unknown>, path: string, issues: SchemaIssue[]): void {
  const { form, title, description, approvers, notify } = config;
  if (isMap(form) && JSON.stringify(form).length > ANSWER_LIMITS.formBytes)
    issues.push({ path: join(path, 'form'), message: `must be at most ${ANSWER_LIMITS.formBytes} bytes of JSON` });
  if (typeof title === 'string' && title.length > ANSWER_LIMITS.titleChars)
    issues.push({ path: join(path, 'title'), message: `must be at most ${ANSWER_LIMITS.titleChars} characters` });
  if (typeof description === 'string' && description.length > ANSWER_LIMITS.descriptionChars)
    issues.push({ path: join(path, 'description'), message: `must be at most ${ANSWER_LIMITS.descriptionChars} characters` });
  if (isMap(approvers)) {
    const at = join(path, 'approvers');
    for (const key of Object.keys(approvers))
      if (!['roles', 'users', 'nrn'].includes(key))
        issues.push({ path: join(at, key), message: 'is not an approvers key (roles, users, nrn)' });
    const { roles, users } = approvers;
    const listProblem = (list: unknown, max: number, ok: (entry: unknown) => boolean, what: string): string | undefined => {
      if (list === undefined || isTemplate(list)) return undefined;
      if (!Array.isArray(list)) return 'must be an array';
      if (list.length > max) return `must list at most ${max}`;
      return list.every((entry) => isTemplate(entry) || ok(entry)) ? undefined : `must list ${what}`;
    };
    const rolesProblem = listProblem(roles, ANSWER_LIMITS.roles, (r) => typeof r === 'string' && ROLE_SLUG.test(r), 'role slugs');
    if (rolesProblem) issues.push({ path: join(at, 'roles'), message: rolesProblem });
    const userOk = (u: unknown) => (typeof u === 'string' && USER_ID.test(u)) || (Number.isSafeInteger(u) && (u as number) >= 0);
    const usersProblem = listProblem(users, ANSWER_LIMITS.users, userOk, 'user ids (decimal)');
    if (usersProblem) issues.push({ path: join(at, 'users'), message: usersProblem });
    const count = (list: unknown) => (Array.isArray(list) ? list.length : list === undefined ? 0 : 1);
    if (count(roles) === 0 && count(users) === 0) issues.push({ path: at, message: 'must name at least one role or user' });
  }
  if (isMap(notify)) {
    const { url, headers } = notify;
    if (typeof url === 'string' && !isTemplate(url) && !/^https?:\/\/[^\s]+$/.test(url))
      issues.push({ path: join(path, 'notify', 'url'), message: 'must be an http(s) URL' });
    if (typeof url === 'string' && url.length > ANSWER_LIMITS.urlChars)
      issues.push({ path: join(path, 'notify', 'url'), message: `must be at most ${ANSWER_LIMITS.urlChars} characters` });
    if (isMap(headers) && Object.keys(headers).length > ANSWER_LIMITS.headers)
      issues.push({ path: join(path, 'notify', 'headers'), message: `must have at most ${ANSWER_LIMITS.headers} headers` });
  }
}

/**
 * Run time: the declared answer from the rendered config, or a problem (a template that rendered out of
 * bounds). Undefined for a plain wait.
 */
export function declaredAnswer(config: Record<string, unknown>): WaitAnswer | { problem: string } | undefined {
  if (!declaresAnswer(config)) return undefined;
  const answer: WaitAnswer = {
    excludeStarter: config.excludeStarter === true,
    required: config.required === undefined || config.required === null ? 1 : Number(config.required),
  };
  if (!Number.isInteger(answer.required) || answer.required < 1 || answer.required > ANSWER_LIMITS.required)
    return { problem: `"required" must be an integer from 1 to ${ANSWER_LIMITS.required}` };
  const text = (key: 'title' | 'description', max: number) => {
    const value = config[key];
    if (value !== undefined && value !== null) answer[key] = stringify(value).slice(0, max);
  };
  text('title', ANSWER_LIMITS.titleChars);
  text('description', ANSWER_LIMITS.descriptionChars);
  if (config.form !== undefined && config.form !== null) {
    if (!isMap(config.form)) return { problem: '"form" must be a JSON Schema object' };
    answer.form = config.form;
  }
  if (config.approvers !== undefined && config.approvers !== null) {
    const approvers = config.approvers;
    if (!isMap(approvers)) return { problem: '"approvers" must be an object' };
    const list = (value: unknown) => (Array.isArray(value) ? value : value === undefined || value === null ? [] : [value]).map(stringify);
    const roles = list(approvers.roles);
    const users = list(approvers.users);
    if (roles.length > ANSWER_LIMITS.roles || !roles.every((r) => ROLE_SLUG.test(r)))
      return { problem: `"approvers.roles" must list at most ${ANSWER_LIMITS.roles} role slugs` };
    if (users.length > ANSWER_LIMITS.users || !users.every((u) => USER_ID.test(u)))
      return { problem: `"approvers.users" must list at most ${ANSWER_LIMITS.users} user ids` };
    if (roles.length === 0 && users.length === 0) return { problem: '"approvers" must name at least one role or user' };
    answer.approvers = { roles, users };
    if (approvers.nrn !== undefined && approvers.nrn !== null && stringify(approvers.nrn) !== '')
      answer.approvers.nrn = stringify(approvers.nrn).slice(0, 200);
  }
  if (config.notify !== undefined && config.notify !== null) {
    const notify = config.notify;
    if (
      !isMap(notify) ||
      typeof notify.url !== 'string' ||
      !/^https?:\/\/[^\s]+$/.test(notify.url) ||
      notify.url.length > ANSWER_LIMITS.urlChars
    )
      return { problem: '"notify.url" must be an http(s) URL' };
    answer.notify = { url: notify.url };
    if (isMap(notify.headers)) {
      const entries = Object.entries(notify.headers).slice(0, ANSWER_LIMITS.headers);
      answer.notify.headers = Object.fromEntries(
        entries.map(([name, value]) => [name, stringify(value).slice(0, ANSWER_LIMITS.headerChars)]),
      );
    }
  }
  return answer;
}
