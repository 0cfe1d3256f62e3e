/** Reading option values: JSON given inline or `@file`, stub modules, definition files. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { StubHandler, StubSpec, Stubs } from '../stubs';
import { CliError, EXIT } from './output';

/** `{"a":1}` or `@inputs.json` (YAML files are read too): an object. */
export function jsonObject(value: string | undefined, option: string): Record<string, unknown> | undefined {
  if (value === undefined) return undefined;
  let text = value;
  if (value.startsWith('@')) {
    try {
      text = readFileSync(value.slice(1), 'utf8');
    } catch (error) {
      throw new CliError(`${option}: cannot read ${value.slice(1)}: ${(error as Error).message}`, EXIT.usage);
    }
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new CliError(`${option}: not valid JSON: ${(error as Error).message}`, EXIT.usage);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new CliError(`${option} must be a JSON object`, EXIT.usage);
  return parsed as Record<string, unknown>;
}

/** The plugin types of `--stub type=module.js` options, without loading the modules. */
export function stubTypes(specs: string[] | undefined): Set<string> {
  return new Set((specs ?? []).map((spec) => stubType(spec)));
}

function stubType(spec: string): string {
  const at = spec.indexOf('=');
  if (at <= 0) throw new CliError(`--stub ${spec}: write --stub <plugin-type>=<module file>`, EXIT.usage);
  return spec.slice(0, at);
}

/** `--stub type=module.js`: the module's default export (or `handler`), a handler function or a stub spec. */
export async function loadStubs(specs: string[] | undefined): Promise<Stubs> {
  const stubs: Stubs = {};
  for (const spec of specs ?? []) {
    const type = stubType(spec);
    const file = path.resolve(spec.slice(type.length + 1));
    let loaded: Record<string, unknown>;
    try {
      loaded = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
    } catch (error) {
      throw new CliError(`--stub ${type}: cannot load ${file}: ${(error as Error).message}`, EXIT.usage);
    }
    // A CommonJS module imported from ESM puts module.exports on `default`.
    const exported = pick(loaded) ?? pick(loaded.default as Record<string, unknown> | undefined);
    if (!exported) throw new CliError(`--stub ${type}: ${file} exports no handler (export default a function or { handler })`, EXIT.usage);
    stubs[type] = exported;
  }
  return stubs;
}

function pick(module: Record<string, unknown> | undefined): StubHandler | StubSpec | undefined {
  if (!module) return undefined;
  if (typeof module === 'function') return module;
  if (typeof module.default === 'function') return module.default as StubHandler;
  if (typeof module.handler === 'function') return module;
  if (module.default && typeof module.default === 'object' && typeof (module.default as StubSpec).handler === 'function')
    return module.default;
  return undefined;
}
