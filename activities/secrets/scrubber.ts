/**
 * Removes secret values from anything an activity returns, throws or logs.
 * A secret is matched in the forms it takes on its way through URLs, headers
 * and JSON, not only as written:
 * - each character in either case (a URL host is lower-cased; code may upper-case);
 * - each character other than `A–Z a–z 0–9 - . _` also percent-encoded (its
 *   UTF-8 bytes, hex in either case: `encodeURIComponent`, `encodeURI`, the URL
 *   parser's own sets and form encoding all encode some subset of them), a space
 *   also as `+`, and JSON-escaped (`\"`, `\\`, `\/`, `\n`…, `\uXXXX`);
 * - the forms the WHATWG URL parser makes of it: TAB, LF and CR removed
 *   anywhere, `\` turned into `/` in a path, and the host form (lower case,
 *   IDNA `xn--…`, `url.domainToASCII`) of a secret that can be a whole host.
 *   A secret holding a character that ends a host (`/ \ ? # @ :`) has no host
 *   form: the parser's host is then only a part of it, and redacting that part
 *   everywhere would redact ordinary text;
 * - base64 (standard and URL-safe, padded or not) of the secret alone and as
 *   it appears inside a longer base64 text at each of the three byte
 *   alignments (Basic credentials `user:secret`, tokens built by code).
 * The forms are compiled once per set of secrets into one regular expression,
 * so a string is scrubbed in one pass, and the expression is kept for the next
 * activity with the same secrets (a bounded number of them). A long secret
 * (over LONG_SECRET characters, or past the budget of one expression) is
 * matched in its common encodings as exact texts rather than character by
 * character, so that no set of secrets makes an expression too large to compile. Very short values (under 4 characters)
 * are not matched: they would redact ordinary text without protecting anything.
 */
import { domainToASCII } from 'node:url';
import { SECRET_MASK } from '../../workflows/engine';

/** The same mark the engine shows where it never resolves a secret (a log message). */
export const REDACTED = SECRET_MASK;
const MIN_LENGTH = 4;
/**
 * Past this length, or past the budget of pattern text for one set of secrets, a secret's forms
 * are exact texts: V8 refuses (or fails to allocate) a per-character expression much larger.
 */
const LONG_SECRET = 1024;
const PATTERN_BUDGET = 256 * 1024;
/** Compiled expressions kept, one per set of secrets, and the characters they may hold in all (long secrets are large). */
const PATTERN_CACHE_SIZE = 256;
const PATTERN_CACHE_CHARS = 8 * 1024 * 1024;
/** What ends a URL's host: a secret with one of these is never a whole host. */
const HOST_END = /[/\\?#@:]/;
/** What the URL parser removes from its input wherever it stands. */
const URL_STRIPPED = /[\t\n\r]/g;

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
  for (const text of urlTexts(secret)) add(text, true);
  const host = hostForm(secret);
  if (host !== undefined) add(host, true);
  for (const text of base64Forms(secret)) add(text, false);
  return forms;
}

/** The secret as written, and as the URL parser leaves it in a query (TAB, LF, CR removed) and in a path (`\\` made `/` too). */
function urlTexts(secret: string): string[] {
  const stripped = secret.replace(URL_STRIPPED, '');
  return [...new Set([secret, stripped, stripped.replace(/\\/g, '/')])];
}

/** What a URL makes of the secret as its whole host (lower case, IDNA), when it differs; none when it cannot be a whole host. */
function hostForm(secret: string): string | undefined {
  const stripped = secret.replace(URL_STRIPPED, '');
  if (HOST_END.test(stripped)) return undefined;
  const host = domainToASCII(stripped);
  return host !== '' && host !== stripped.toLowerCase() ? host : undefined;
}

/**
 * The forms of a secret too long for a per-character pattern, as exact texts: as written, in
 * either case, URL- and JSON-encoded, as a URL leaves it, as a host, and in base64.
 */
export function exactForms(secret: string): string[] {
  const texts = new Set<string>();
  for (const text of urlTexts(secret)) {
    const component = encodeURIComponent(text);
    for (const form of [text, text.toLowerCase(), text.toUpperCase(), JSON.stringify(text).slice(1, -1), component, encodeURI(text)])
      texts.add(form);
    for (const form of [component.replace(/%20/g, '+'), component.toLowerCase()]) texts.add(form);
  }
  const host = hostForm(secret);
  if (host !== undefined) texts.add(host);
  for (const text of base64Forms(secret)) texts.add(text);
  return [...texts].filter((text) => text.length >= MIN_LENGTH);
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

/** Compiled scrubbers by their set of secrets, oldest first (a Map keeps insertion order). */
const PATTERNS = new Map<string, Compiled>();
let cachedChars = 0;

/** What scrubs one set of secrets: one expression for the per-character forms, exact texts for the rest (longest first). */
interface Compiled {
  pattern?: RegExp;
  exact: string[];
  /** What it holds, in characters (its key, expression source and exact texts): the cache's measure. */
  chars: number;
}

function compile(secrets: Iterable<string>): Compiled {
  const distinct = [...new Set(secrets)].filter((secret) => secret !== '').sort();
  const key = distinct.join('\u0000');
  const cached = PATTERNS.get(key);
  if (cached) {
    // Most recently used last, so the oldest is the one dropped.
    PATTERNS.delete(key);
    PATTERNS.set(key, cached);
    return cached;
  }
  const forms = new Map<string, Form>();
  const exact = new Set<string>();
  let budget = PATTERN_BUDGET;
  // Shortest first: the budget goes to as many secrets as it can; the longest ones are matched as exact texts.
  for (const secret of [...distinct].sort((a, b) => a.length - b.length)) {
    const own = secret.length <= LONG_SECRET ? secretForms(secret) : [];
    const size = own.reduce((total, form) => total + form.pattern.length, 0);
    if (secret.length <= LONG_SECRET && size <= budget) {
      budget -= size;
      for (const form of own) forms.set(form.pattern, form);
    } else for (const text of exactForms(secret)) exact.add(text);
  }
  // Longest first: at one position, a value is replaced whole rather than up to a shorter form inside it.
  const sorted = [...forms.values()].sort((a, b) => b.text.length - a.text.length).map((form) => form.pattern);
  const source = sorted.join('|');
  const texts = [...exact].sort((a, b) => b.length - a.length);
  const compiled: Compiled = { exact: texts, chars: key.length + source.length + texts.reduce((total, text) => total + text.length, 0) };
  if (sorted.length > 0) compiled.pattern = new RegExp(source, 'g');
  // Oldest first out, until the newest fits; one too large for the cache is used without being kept.
  while (PATTERNS.size > 0 && (PATTERNS.size >= PATTERN_CACHE_SIZE || cachedChars + compiled.chars > PATTERN_CACHE_CHARS)) {
    const oldest = PATTERNS.keys().next().value as string;
    cachedChars -= PATTERNS.get(oldest)!.chars;
    PATTERNS.delete(oldest);
  }
  if (compiled.chars <= PATTERN_CACHE_CHARS) {
    PATTERNS.set(key, compiled);
    cachedChars += compiled.chars;
  }
  return compiled;
}

export class Scrubber {
  /** Shared between scrubbers of the same secrets: `replace` with a global expression starts from 0 each time. */
  private readonly pattern?: RegExp;
  private readonly exact: string[];

  constructor(secrets: Iterable<string>) {
    ({ pattern: this.pattern, exact: this.exact } = compile(secrets));
  }

  get active(): boolean {
    return this.pattern !== undefined || this.exact.length > 0;
  }

  text(value: string): string {
    let text = this.pattern ? value.replace(this.pattern, REDACTED) : value;
    for (const form of this.exact) if (text.includes(form)) text = text.split(form).join(REDACTED);
    return text;
  }

  /** A deep copy of JSON-like data with every secret form redacted, keys included. */
  value<T>(value: T): T {
    if (!this.active) return value;
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
