/**
 * Removes secret values from anything an activity returns, throws or logs.
 * A secret is matched in the forms it takes on its way through URLs, headers
 * and JSON, not only as written:
 * - each character in either case (a URL host is lower-cased; code may upper-case);
 * - each character other than `A–Z a–z 0–9 - . _` also percent-encoded (its
 *   UTF-8 bytes, hex in either case: `encodeURIComponent`, `encodeURI`, the URL
 *   parser's own sets and form encoding all encode some subset of them), a space
 *   also as `+`, and JSON-escaped (`\"`, `\\`, `\/`, `\n`…, `\uXXXX`);
 * - the IDNA form of a secret used as a host (`xn--…`, `url.domainToASCII`);
 * - base64 (standard and URL-safe, padded or not) of the secret alone and as
 *   it appears inside a longer base64 text at each of the three byte
 *   alignments (Basic credentials `user:secret`, tokens built by code).
 * The forms are compiled once per set of secrets into one regular expression,
 * so a string is scrubbed in one pass. Very short values (under 4 characters)
 * are not matched: they would redact ordinary text without protecting anything.
 */
import { domainToASCII } from 'node:url';
import { SECRET_MASK } from '../../workflows/engine';

/** The same mark the engine shows where it never resolves a secret (a log message). */
export const REDACTED = SECRET_MASK;
const MIN_LENGTH = 4;

/** Characters no URL encoder escapes, and JSON never does. */
const UNESCAPED = /^[A-Za-z0-9._-]$/;
const JSON_SHORT_ESCAPES: Record<string, string> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  '\b': 'b',
  '\f': 'f',
  '\n': 'n',
  '\r': 'r',
  '\t': 't',
};

/** One form of a secret: the text it is measured by, and the pattern that matches it in any of its encodings. */
interface Form {
  text: string;
  pattern: string;
}

/** The forms of one secret (empty for a value too short to match safely). */
export function secretForms(secret: string): Form[] {
  const forms: Form[] = [];
  const add = (text: string, foldCase: boolean) => {
    if (text.length >= MIN_LENGTH) forms.push({ text, pattern: textPattern(text, foldCase) });
  };
  add(secret, true);
  const host = domainToASCII(secret);
  if (host !== '' && host !== secret.toLowerCase()) add(host, true);
  for (const text of base64Forms(secret)) add(text, false);
  return forms;
}

/** Base64 of the secret, whole (padded or not, both alphabets), and the part of it fixed at each alignment inside longer data. */
function base64Forms(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  const whole = bytes.toString('base64');
  const forms = [whole, whole.replace(/=+$/, ''), bytes.toString('base64url')];
  for (const offset of [0, 1, 2]) {
    // With `offset` bytes before it, the characters whose six bits all come from the secret.
    const start = Math.ceil((offset * 8) / 6);
    const end = Math.floor(((offset + bytes.length) * 8) / 6);
    const aligned = Buffer.concat([Buffer.alloc(offset), bytes]);
    forms.push(aligned.toString('base64').slice(start, end), aligned.toString('base64url').slice(start, end));
  }
  return [...new Set(forms)];
}

/** A pattern matching `text` with each character in any of its encodings (and either case, with `foldCase`). */
function textPattern(text: string, foldCase: boolean): string {
  const cache = foldCase ? FOLDED : EXACT;
  let pattern = '';
  for (const char of text) {
    let part = cache.get(char);
    if (part === undefined) {
      part = charPattern(char, foldCase);
      if (cache.size < CHAR_CACHE_SIZE) cache.set(char, part);
    }
    pattern += part;
  }
  return pattern;
}

/**
 * The pattern of each character seen, per case mode: a secret's forms are built on every step
 * call, and one character's pattern is no secret. Bounded: past the bound, patterns are built
 * each time.
 */
const FOLDED = new Map<string, string>();
const EXACT = new Map<string, string>();
const CHAR_CACHE_SIZE = 4096;

function charPattern(char: string, foldCase: boolean): string {
  const cases = foldCase ? caseVariants(char) : [char];
  // A class for single code units (letters); an astral letter's cases are pairs of units, so alternatives.
  const literal =
    cases.length === 1 ? escapeRegExp(char) : char.length === 1 ? `[${cases.join('')}]` : `(?:${cases.map(escapeRegExp).join('|')})`;
  if (UNESCAPED.test(char)) return literal;
  // Encoded forms before the character itself: `%` must not match the `%` of `%25` and stop there.
  const alternatives = [percentEncoded(char), ...jsonEscaped(char), ...(char === ' ' ? ['\\+'] : []), literal];
  return `(?:${alternatives.join('|')})`;
}

/** The character and its single-character upper and lower cases (letters only have them). */
function caseVariants(char: string): string[] {
  const variants = new Set([char]);
  for (const variant of [char.toLowerCase(), char.toUpperCase()])
    if (variant.length === char.length && variant !== char) variants.add(variant);
  return [...variants];
}

function percentEncoded(char: string): string {
  let pattern = '';
  for (const byte of Buffer.from(char, 'utf8')) pattern += `%${hexDigits(byte, 2)}`;
  return pattern;
}

function jsonEscaped(char: string): string[] {
  const escapes: string[] = [];
  if (Object.hasOwn(JSON_SHORT_ESCAPES, char)) escapes.push(`\\\\${escapeRegExp(JSON_SHORT_ESCAPES[char])}`);
  let unicode = '';
  for (let i = 0; i < char.length; i++) unicode += `\\\\u${hexDigits(char.charCodeAt(i), 4)}`;
  escapes.push(unicode);
  return escapes;
}

/** Hex digits of `value`, each letter in either case. */
function hexDigits(value: number, width: number): string {
  let pattern = '';
  for (const digit of value.toString(16).padStart(width, '0')) pattern += digit >= 'a' ? `[${digit}${digit.toUpperCase()}]` : digit;
  return pattern;
}

export class Scrubber {
  private readonly pattern?: RegExp;

  constructor(secrets: Iterable<string>) {
    const forms = new Map<string, Form>();
    for (const secret of secrets) for (const form of secretForms(secret)) forms.set(form.pattern, form);
    // Longest first: at one position, a value is replaced whole rather than up to a shorter form inside it.
    const sorted = [...forms.values()].sort((a, b) => b.text.length - a.text.length).map((form) => form.pattern);
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
