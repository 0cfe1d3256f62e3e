/** Registered namespaces (in memory; `default` plus any given at start-up or registered). */
import { randomUUID } from 'node:crypto';
import { namespaceNotFound } from './errors';

export interface NamespaceInfo {
  name: string;
  id: string;
  description: string;
  retentionDays: number;
}

export class Namespaces {
  private readonly byName = new Map<string, NamespaceInfo>();

  register(name: string, description = '', retentionDays = 1): NamespaceInfo {
    const existing = this.byName.get(name);
    if (existing) return existing;
    const info: NamespaceInfo = { name, id: randomUUID(), description, retentionDays };
    this.byName.set(name, info);
    return info;
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  get(name: string): NamespaceInfo {
    const info = this.byName.get(name);
    if (!info) throw namespaceNotFound(name);
    return info;
  }

  list(): NamespaceInfo[] {
    return [...this.byName.values()];
  }
}
