/**
 * A workflow kept in git says so in its definition: `metadata.managedBy:
 * {kind: git, repository, path}` (docs/authoring.md). The console shows it on
 * the workflow and editor pages, and asks before a browser edit is published,
 * since the next publish from git replaces it.
 */
import type { Json } from '../api';
import { h, text } from '../dom';

export interface ManagedFromGit {
  repository?: string;
  path?: string;
}

export function managedFromGit(workflow: Json | undefined): ManagedFromGit | undefined {
  const metadata = workflow?.metadata;
  if (!metadata || typeof metadata !== 'object' || Array.isArray(metadata)) return undefined;
  const managedBy = (metadata as Json).managedBy;
  if (!managedBy || typeof managedBy !== 'object' || (managedBy as Json).kind !== 'git') return undefined;
  const { repository, path } = managedBy as Json;
  return {
    ...(typeof repository === 'string' ? { repository } : {}),
    ...(typeof path === 'string' ? { path } : {}),
  };
}

/** Where the workflow is kept, in words: "git (repository, path)". */
export function whereKept(managed: ManagedFromGit): string {
  const place = [managed.repository, managed.path].filter((part) => part !== undefined).map((part) => text(part));
  return place.length > 0 ? `git (${place.join(', ')})` : 'git';
}

export function managedBanner(managed: ManagedFromGit, edit: boolean): HTMLElement {
  return h(
    'p',
    { class: 'managed-banner', role: 'note', 'data-managed-by': 'git' },
    h('strong', {}, 'Managed from git. '),
    `This workflow is kept in ${whereKept(managed)}: `,
    edit
      ? 'a change published here is replaced by the next publish from git unless it is made there too. Publishing asks first.'
      : 'change it there and publish it with platform-workflow publish; an edit here is replaced by the next publish from git.',
  );
}

/** Asks before publishing a browser edit of a workflow kept in git. */
export function confirmEditOfManaged(managed: ManagedFromGit): boolean {
  return confirm(
    `This workflow is managed from ${whereKept(managed)}. The next publish from git replaces a change made here. Publish anyway?`,
  );
}
