/**
 * Removes secret values from anything an activity returns, throws or logs.
 * Each secret is matched in the forms it commonly travels in: plain, base64
 * (standard and URL-safe, with and without padding), URL-encoded and
 * JSON-escaped. Very short values (under 4 characters) are not matched: they
 * would redact ordinary text without protecting anything.
 */
export const REDACTED = '<redacted>';
const MIN_LENGTH = 4;

export function secretForms(secret: string): string[] {
  const base64 = Buffer.from(secret, 'utf8').toString('base64');
  const forms = [
    secret,
    base64,
    base64.replace(/=+$/, ''),
    Buffer.from(secret, 'utf8').toString('base64url'),
    encodeURIComponent(secret),
    encodeURIComponent(secret).replace(/%20/g, '+'),
    JSON.stringify(secret).slice(1, -1),
  ];
  return [...new Set(forms)].filter((form) => form.length >= MIN_LENGTH);
}

export class Scrubber {
  private readonly pattern?: RegExp;

  constructor(secrets: Iterable<string>) {
    const forms = new Set<string>();
    for (const secret of secrets) for (const form of secretForms(secret)) forms.add(form);
    // Longest first, so a value is replaced whole rather than around a shorter form inside it.
    const sorted = [...forms].sort((a, b) => b.length - a.length).map(escapeRegExp);
    if (sorted.length > 0) this.pattern = new RegExp(sorted.join('|'), 'g');
  }

  get active(): boolean {
    return this.pattern !== undefined;
  }

  text(value: string): string {
    return this.pattern ? value.replace(this.pattern, REDACTED) : value;
  }

  /** A deep copy of JSON-like data with every secret form redacted, keys included. */
  value<T>(value: T): T {
    if (!this.pattern) return value;
    const visit = (node: unknown): unknown => {
      if (typeof node === 'string') return this.text(node);
      if (Array.isArray(node)) return node.map(visit);
      if (node !== null && typeof node === 'object') {
        const out: Record<string, unknown> = {};
        for (const [key, child] of Object.entries(node)) out[this.text(key)] = visit(child);
        return out;
      }
      return node;
    };
    return visit(value) as T;
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
