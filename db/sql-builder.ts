/**
 * The one way to build a statement from parts: a tagged template that numbers its own
 * parameters. `sql\`… ${value} …\`` makes a fragment; a value interpolated into it becomes
 * the next `$n` when the statement is compiled, a fragment interpolated into it is inlined
 * (its values numbered where they land), so parts written in different functions compose
 * without any of them knowing another's numbers. A value used in several places is
 * `bind(value)`: one `$n` wherever it appears. An array is one parameter (`= ANY(${ids}::text[])`).
 * Text that is not a value (a column list from entity metadata, a chosen keyword) is
 * `raw(text)`: never put request input there.
 *
 * Numbers follow the order of first appearance in the compiled text, so a statement's text
 * is fixed by its shape: the same shape compiles to the same text (which a named prepared
 * statement on the pool needs).
 */

const FRAGMENT = Symbol('sql fragment');
const BOUND = Symbol('sql bound value');

/** A piece of SQL with its values, not yet numbered. */
export interface Sql {
  readonly [FRAGMENT]: true;
  /** Text and the values between its pieces: `texts.length === values.length + 1`. */
  readonly texts: readonly string[];
  readonly values: readonly unknown[];
}

/** A value that is one parameter however many times the statement uses it. */
export interface Bound {
  readonly [BOUND]: true;
  readonly value: unknown;
}

/** A statement ready for the driver. */
export interface CompiledSql {
  text: string;
  values: unknown[];
}

export function sql(strings: TemplateStringsArray, ...values: unknown[]): Sql {
  return { [FRAGMENT]: true, texts: [...strings], values };
}

/** Text put in as it is (identifiers, select lists generated from entity metadata). */
export function raw(text: string): Sql {
  return { [FRAGMENT]: true, texts: [text], values: [] };
}

/** The fragments joined by `separator` (text), e.g. `join(conditions, ' AND ')`. */
export function join(parts: readonly Sql[], separator: string): Sql {
  if (parts.length === 0) return raw('');
  const texts = ['', ...parts.slice(1).map(() => separator), ''];
  return { [FRAGMENT]: true, texts, values: [...parts] };
}

export function bind(value: unknown): Bound {
  return { [BOUND]: true, value };
}

/** The value as a bound one (itself if it is one already): for a fragment helper that uses an argument twice. */
export function bound(value: unknown): Bound {
  return isBound(value) ? value : bind(value);
}

export function isSql(value: unknown): value is Sql {
  return typeof value === 'object' && value !== null && FRAGMENT in value;
}

function isBound(value: unknown): value is Bound {
  return typeof value === 'object' && value !== null && BOUND in value;
}

/** Numbers the statement's parameters `$1…$n` in order of first appearance. */
export function compile(statement: Sql): CompiledSql {
  const values: unknown[] = [];
  const numbers = new Map<Bound, number>();
  const placeholder = (value: unknown): string => {
    if (!isBound(value)) return `$${values.push(value)}`;
    let n = numbers.get(value);
    if (n === undefined) {
      n = values.push(value.value);
      numbers.set(value, n);
    }
    return `$${n}`;
  };
  const render = (fragment: Sql): string => {
    let text = fragment.texts[0];
    fragment.values.forEach((value, i) => {
      text += (isSql(value) ? render(value) : placeholder(value)) + fragment.texts[i + 1];
    });
    return text;
  };
  const text = render(statement);
  return { text, values };
}
