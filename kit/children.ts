/** The definitions `sub-workflow` steps may run in a local run: given inline, as files, or as folders of files. */
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import type { WorkflowDefinition } from '../workflows/engine';
import { loadDefinition, type LoadedDefinition } from './load';
import { DefinitionInvalid } from './errors';
import { validateDefinition, type KitValidationOptions } from './validate';

export type WorkflowSource = WorkflowDefinition | Record<string, unknown> | string;

/**
 * A folder's definition files by key (the definition's `key`, else the file
 * name without extension). A file that does not validate fails only the run
 * that asks for its key.
 */
export function definitionsIn(folder: string, options: KitValidationOptions): Map<string, LoadedDefinition> {
  const found = new Map<string, LoadedDefinition>();
  for (const file of definitionFiles(folder)) {
    const loaded = loadDefinition(file, options);
    found.set(keyOf(loaded.definition, file), loaded);
  }
  return found;
}

/** Names a folder scan passes over: package manifests, TypeScript configs, dependencies and hidden entries. */
const NOT_DEFINITIONS = /^(package(-lock)?\.json|tsconfig.*\.json|node_modules|\..*)$/i;

/** YAML and JSON files under a folder (recursively, skipping NOT_DEFINITIONS), sorted; a file is itself. */
export function definitionFiles(target: string): string[] {
  if (!statSync(target).isDirectory()) return [target];
  const files: string[] = [];
  for (const entry of readdirSync(target, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const full = path.join(target, entry.name);
    if (entry.isDirectory()) {
      if (!NOT_DEFINITIONS.test(entry.name)) files.push(...definitionFiles(full));
    } else if (/\.(ya?ml|json)$/i.test(entry.name) && !NOT_DEFINITIONS.test(entry.name)) files.push(full);
  }
  return files;
}

/** The workflow key of a definition (normalized, or a document as written) read from a file: its `key`, else the file name. */
export function keyOf(definition: { key?: unknown } | undefined, file: string): string {
  return typeof definition?.key === 'string' && definition.key !== ''
    ? definition.key
    : path.basename(file).replace(/\.(ya?ml|json)$/i, '');
}

/** Resolves a run's `workflows` option lazily, one key at a time. */
export function childResolver(
  sources: Record<string, WorkflowSource> | string | undefined,
  options: KitValidationOptions,
): (key: string) => WorkflowDefinition | undefined {
  const cache = new Map<string, WorkflowDefinition | undefined>();
  let folder: Map<string, LoadedDefinition> | undefined;
  return (key) => {
    if (cache.has(key)) return cache.get(key);
    let found: WorkflowDefinition | undefined;
    if (typeof sources === 'string') {
      folder ??= definitionsIn(sources, options);
      const loaded = folder.get(key);
      if (loaded) found = requireLoaded(loaded);
    } else if (sources && Object.hasOwn(sources, key)) {
      found = toDefinition(sources[key], options);
    }
    cache.set(key, found);
    return found;
  };
}

function toDefinition(source: WorkflowSource, options: KitValidationOptions): WorkflowDefinition {
  if (typeof source === 'string') return requireLoaded(loadDefinition(source, options));
  return requireValid(source, options);
}

function requireLoaded(loaded: LoadedDefinition): WorkflowDefinition {
  if (!loaded.definition || loaded.errors.length > 0) throw new DefinitionInvalid(loaded.errors, loaded.file);
  return loaded.definition;
}

export function requireValid(document: Record<string, unknown>, options: KitValidationOptions, file?: string): WorkflowDefinition {
  const result = validateDefinition(document, options);
  if (!result.definition) throw new DefinitionInvalid(result.errors, file);
  return result.definition;
}
