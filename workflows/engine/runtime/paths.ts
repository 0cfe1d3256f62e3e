/** Dot paths into plain data (`a.b.0.c`), and `outputProjection` with `[]` mapping over arrays. */
const UNSAFE = new Set(['__proto__', 'prototype', 'constructor']);

export function readPath(value: unknown, path: string): unknown {
  let current: unknown = value;
  for (const segment of path.split('.').filter(Boolean)) {
    if (UNSAFE.has(segment) || current === null || typeof current !== 'object') return undefined;
    current = Object.hasOwn(current, segment) ? (current as Record<string, unknown>)[segment] : undefined;
  }
  return current;
}

/**
 * Keeps only the projected paths of an item: `body.results[].id` keeps
 * `{body: {results: [{id}, …]}}`. Paths that are absent are left out.
 */
export function project(item: Record<string, unknown>, paths: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const path of paths) merge(out, pick(item, path.split('.').filter(Boolean)));
  return out;
}

function pick(value: unknown, segments: string[]): Record<string, unknown> | undefined {
  if (segments.length === 0 || value === null || typeof value !== 'object') return undefined;
  const [head, ...rest] = segments;
  const mapsArray = head.endsWith('[]');
  const key = mapsArray ? head.slice(0, -2) : head;
  if (UNSAFE.has(key) || !Object.hasOwn(value, key)) return undefined;
  const child = (value as Record<string, unknown>)[key];
  if (mapsArray) {
    if (!Array.isArray(child)) return undefined;
    return { [key]: rest.length === 0 ? child : child.map((entry) => pick(entry, rest) ?? {}) };
  }
  if (rest.length === 0) return { [key]: child };
  const inner = pick(child, rest);
  return inner === undefined ? undefined : { [key]: inner };
}

function merge(target: Record<string, unknown>, source: Record<string, unknown> | undefined): void {
  if (!source) return;
  for (const [key, value] of Object.entries(source)) {
    const existing = target[key];
    if (Array.isArray(existing) && Array.isArray(value)) {
      target[key] = value.map((entry, index) => {
        const merged = { ...((existing[index] as Record<string, unknown>) ?? {}) };
        merge(merged, entry as Record<string, unknown>);
        return merged;
      });
    } else if (existing !== null && typeof existing === 'object' && value !== null && typeof value === 'object' && !Array.isArray(value)) {
      merge(existing as Record<string, unknown>, value as Record<string, unknown>);
    } else {
      target[key] = value;
    }
  }
}
