/**
 * A small, plain-data schema language for plugin config, and its validator.
 * Ajv is not an option here (it compiles with `new Function`, which the
 * workflow sandbox forbids), and descriptor schemas need only this subset.
 * A string holding a `${{ }}` template is accepted for any type: its value is
 * known only at run time, and its syntax is checked separately.
 */
import { cronError } from './cron';
import { isDuration } from './durations';
import { join } from './pointer';

export type ValueType = 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array' | 'any';

export interface PropertySchema {
  /** One type or several accepted types. */
  type: ValueType | ValueType[];
  description?: string;
  enum?: Array<string | number | boolean>;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  /** Extra meaning for string values. */
  format?: 'duration' | 'cron' | 'expression' | 'path-segment' | 'script';
  items?: PropertySchema;
  /** For objects: known properties (others allowed). */
  properties?: Record<string, PropertySchema>;
  required?: string[];
  default?: unknown;
}

export interface ConfigSchema {
  properties: Record<string, PropertySchema>;
  required?: string[];
}

export interface SchemaIssue {
  path: string;
  message: string;
}

export function isTemplate(value: unknown): boolean {
  return typeof value === 'string' && value.includes('${{');
}

function typeOf(value: unknown): ValueType | 'null' {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value as ValueType;
}

function matchesType(value: unknown, type: ValueType): boolean {
  const actual = typeOf(value);
  if (type === 'any') return value !== undefined;
  if (type === 'number') return actual === 'number' || actual === 'integer';
  return actual === type;
}

export function validateValue(value: unknown, schema: PropertySchema, path: string, issues: SchemaIssue[]): void {
  if (isTemplate(value)) return;
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  // Durations may be written as numbers (ms) as well as strings.
  const durationNumber = schema.format === 'duration' && typeof value === 'number';
  if (!durationNumber && !types.some((type) => matchesType(value, type))) {
    issues.push({ path, message: `must be ${types.join(' or ')}` });
    return;
  }
  if (schema.enum && !schema.enum.includes(value as string)) {
    issues.push({ path, message: `must be one of ${schema.enum.map((v) => JSON.stringify(v)).join(', ')}` });
    return;
  }
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum) issues.push({ path, message: `must be >= ${schema.minimum}` });
    if (schema.maximum !== undefined && value > schema.maximum) issues.push({ path, message: `must be <= ${schema.maximum}` });
  }
  if (typeof value === 'string') {
    if (schema.minLength !== undefined && value.length < schema.minLength)
      issues.push({ path, message: `must have at least ${schema.minLength} characters` });
    if (schema.format === 'path-segment' && !isPathSegment(value))
      issues.push({
        path,
        message: 'must be one readable URL path segment (letters, digits, ".", "_" or "-"; at most 64 characters), not a URL',
      });
    if (schema.format === 'cron') {
      const problem = cronError(value);
      if (problem) issues.push({ path, message: `is not a valid cron expression: ${problem}` });
    }
  }
  if (schema.format === 'duration' && (typeof value === 'string' || typeof value === 'number') && !isDuration(value)) {
    issues.push({ path, message: 'is not a valid duration (e.g. 500ms, 30s, 2h, 1d, PT24H or milliseconds)' });
  }
  if (Array.isArray(value) && schema.items) {
    value.forEach((item, index) => validateValue(item, schema.items as PropertySchema, join(path, index), issues));
  }
  if (typeOf(value) === 'object' && (schema.properties || schema.required)) {
    validateObject(value as Record<string, unknown>, { properties: schema.properties ?? {}, required: schema.required }, path, issues);
  }
}

export function validateObject(value: Record<string, unknown>, schema: ConfigSchema, path: string, issues: SchemaIssue[]): void {
  for (const name of schema.required ?? []) {
    if (!Object.prototype.hasOwnProperty.call(value, name) || value[name] === undefined || value[name] === null)
      issues.push({ path: join(path, name), message: 'is required' });
  }
  // Walk the (few) keys present rather than every property the schema knows.
  for (const name of Object.keys(value)) {
    const property = Object.prototype.hasOwnProperty.call(schema.properties, name) ? schema.properties[name] : undefined;
    if (property === undefined || value[name] === undefined || value[name] === null) continue;
    validateValue(value[name], property, join(path, name), issues);
  }
}

/** One URL path segment a person can read (webhook-wait `urlPrefix`): never a URL, a slash or a dot segment. */
export function isPathSegment(value: string): boolean {
  return /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(value);
}
