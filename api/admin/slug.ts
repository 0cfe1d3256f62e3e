/** Slugs generated from names: lower-case ASCII words joined by dashes. */
export const SLUG_PATTERN = '^[a-z0-9]+(?:-[a-z0-9]+)*$';

export function slugify(name: string, maxLength: number, fallback: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, maxLength)
    .replace(/-+$/, '');
  return slug === '' ? fallback : slug;
}

/** `base`, then `base-2`, `base-3`… each cut so the whole fits in `maxLength`. */
export function slugCandidate(base: string, attempt: number, maxLength: number): string {
  if (attempt <= 1) return base.slice(0, maxLength);
  const suffix = `-${attempt}`;
  return base.slice(0, maxLength - suffix.length).replace(/-+$/, '') + suffix;
}
