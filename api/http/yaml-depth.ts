/**
 * The nesting of a YAML text, measured before it is parsed. The YAML library
 * composes documents recursively: a body nested a few thousand levels deep
 * (4 KB of `[`) overflowed its stack, and V8 can abort the whole process when
 * that happens while it compiles a regular expression. So the depth limit
 * (BODY_MAX_DEPTH) is applied to the text first, in one linear pass with no
 * recursion, and the parser only ever sees texts it can handle.
 *
 * The measure is an upper bound of the parsed value's depth for every text the
 * parser accepts, and equals it for ordinary documents:
 * - block collections: a stack of the columns where mappings (`key:`) and
 *   sequences (`- `) begin; a line less indented closes those deeper;
 * - flow collections (`[`, `{`), on one line or across lines, add one level each;
 * - quoted scalars, block scalars (`|`, `>`), comments and plain text are skipped,
 *   so brackets inside them count for nothing.
 * A text the parser would refuse may be measured loosely; it is refused either way.
 */

/** Where a YAML text first nests deeper than `maxDepth` (1-based line and column), or undefined. */
export function yamlDepthIssue(text: string, maxDepth: number): { line: number; column: number } | undefined {
  return new YamlDepthScan(text, maxDepth).run();
}

const SPACE = 0x20;
const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
const NONE = -2;

class YamlDepthScan {
  /**
   * The open block collections, outermost first, each as `2 × column`, plus one for a
   * sequence: a sequence may sit at its parent key's column (`a:` then `- x`), and is
   * then one level deeper than that mapping, not the same one.
   */
  private readonly blocks: number[] = [];
  private flow = 0;
  /** An open quoted scalar (`"` or `'`) continuing onto the next line. */
  private quote = 0;
  /** While a block scalar's content lines run: the indentation they must exceed (-1 at the root; NONE otherwise). */
  private blockScalarParent = NONE;
  private lineNo = 0;
  private lineStart = 0;

  constructor(
    private readonly text: string,
    private readonly maxDepth: number,
  ) {}

  run(): { line: number; column: number } | undefined {
    const { text } = this;
    while (this.lineStart <= text.length) {
      let end = text.indexOf('\n', this.lineStart);
      if (end === -1) end = text.length;
      this.lineNo++;
      const issue = this.scanLine(this.lineStart, end);
      if (issue !== undefined) return { line: this.lineNo, column: issue - this.lineStart + 1 };
      this.lineStart = end + 1;
    }
    return undefined;
  }

  /** The offset where the depth is exceeded on this line, or undefined. */
  private scanLine(start: number, end: number): number | undefined {
    const { text } = this;
    let i = start;
    while (i < end && text.charCodeAt(i) === SPACE) i++;
    const indent = i - start;
    const blank = i >= end || text.charCodeAt(i) === CR || (text.charCodeAt(i) === 0x23 && this.quote === 0);
    if (this.blockScalarParent !== NONE) {
      if (blank || indent > this.blockScalarParent) return undefined;
      this.blockScalarParent = NONE;
    }
    if (this.quote !== 0 || this.flow > 0) return this.scanInline(i, end);
    if (blank) return undefined;
    if (text.startsWith('---', i) || text.startsWith('...', i)) {
      if (indent === 0 && (i + 3 >= end || isSpace(text.charCodeAt(i + 3)))) {
        this.blocks.length = 0;
        return this.scanValue(i + 3, end);
      }
    }
    if (indent === 0 && text.charCodeAt(i) === 0x25 /* % directive */) return undefined;
    this.closeAfter(2 * indent + 1);
    return this.scanNode(i, end);
  }

  /** A block node starting at `i`: sequence entries, a mapping key, or a value. */
  private scanNode(i: number, end: number): number | undefined {
    const { text } = this;
    for (;;) {
      const c = text.charCodeAt(i);
      // `- ` (or `? `, an explicit key): a collection at this column, then the entry's own node.
      if ((c === 0x2d || c === 0x3f) && (i + 1 >= end || isSpace(text.charCodeAt(i + 1)))) {
        if (this.open(2 * (i - this.lineStart) + (c === 0x2d ? 1 : 0))) return i;
        i = skipSpaces(text, i + 1, end);
        if (i >= end) return undefined;
        continue;
      }
      break;
    }
    const colon = this.mappingColon(i, end);
    if (colon >= 0) {
      if (this.open(2 * (i - this.lineStart))) return i;
      return this.scanValue(colon + 1, end);
    }
    return this.scanValue(i, end);
  }

  /** Opens the block collection `code` (see `blocks`) unless it is open already; true when that is too deep. */
  private open(code: number): boolean {
    this.closeAfter(code);
    if (this.blocks[this.blocks.length - 1] === code) return false;
    this.blocks.push(code);
    return this.blocks.length > this.maxDepth;
  }

  private closeAfter(code: number): void {
    while (this.blocks.length > 0 && this.blocks[this.blocks.length - 1] > code) this.blocks.pop();
  }

  /**
   * The offset of the `:` that makes this line a `key: value` entry (outside quotes and
   * flow brackets, followed by a space or the line's end), or -1.
   */
  private mappingColon(i: number, end: number): number {
    const { text } = this;
    const first = text.charCodeAt(i);
    if (first === 0x22 || first === 0x27) {
      const close = closingQuote(text, i, end);
      if (close < 0) return -1;
      i = skipSpaces(text, close + 1, end);
      return text.charCodeAt(i) === 0x3a && (i + 1 >= end || isSpace(text.charCodeAt(i + 1))) ? i : -1;
    }
    if (first === 0x5b || first === 0x7b || first === 0x23 || first === 0x7c || first === 0x3e) return -1;
    for (let j = i; j < end; j++) {
      const c = text.charCodeAt(j);
      if (c === 0x3a && (j + 1 >= end || isSpace(text.charCodeAt(j + 1)))) return j;
      if (c === 0x23 && j > i && isSpace(text.charCodeAt(j - 1))) return -1;
    }
    return -1;
  }

  /** A value after its indicators: a flow collection, a quoted or block scalar, or plain text. */
  private scanValue(i: number, end: number): number | undefined {
    const { text } = this;
    i = skipSpaces(text, i, end);
    // Properties before the node: an anchor (`&a`) or a tag (`!t`), each followed by a space.
    while (i < end && (text.charCodeAt(i) === 0x26 || text.charCodeAt(i) === 0x21)) {
      while (i < end && !isSpace(text.charCodeAt(i))) i++;
      i = skipSpaces(text, i, end);
    }
    if (i >= end) return undefined;
    const c = text.charCodeAt(i);
    if (c === 0x7c || c === 0x3e) {
      // Its content is indented past the innermost open collection (any indentation at the root).
      const innermost = this.blocks[this.blocks.length - 1];
      this.blockScalarParent = innermost === undefined ? -1 : innermost >> 1;
      return undefined;
    }
    if (c === 0x5b || c === 0x7b || c === 0x22 || c === 0x27) return this.scanInline(i, end);
    return undefined;
  }

  /** Flow context and quoted scalars, which may span lines: brackets count, quoted text and comments do not. */
  private scanInline(i: number, end: number): number | undefined {
    const { text } = this;
    for (; i < end; i++) {
      const c = text.charCodeAt(i);
      if (this.quote !== 0) {
        if (this.quote === 0x22 && c === 0x5c) i++;
        else if (c === this.quote) {
          if (this.quote === 0x27 && text.charCodeAt(i + 1) === 0x27) i++;
          else {
            this.quote = 0;
            // A quoted value in block context ends the node; what follows is a comment at most.
            if (this.flow === 0) return undefined;
          }
        }
        continue;
      }
      if (c === 0x22 || c === 0x27) {
        // A quote opens a scalar only where a node may start; inside plain text (`it's`) it is text.
        const before = i > this.lineStart ? text.charCodeAt(i - 1) : SPACE;
        if (isSpace(before) || before === 0x5b || before === 0x7b || before === 0x2c || before === 0x3a) this.quote = c;
        continue;
      }
      if (c === 0x23 && (i === this.lineStart || isSpace(text.charCodeAt(i - 1)))) return undefined;
      if (c === 0x5b || c === 0x7b) {
        this.flow++;
        if (this.blocks.length + this.flow > this.maxDepth) return i;
      } else if ((c === 0x5d || c === 0x7d) && this.flow > 0) {
        this.flow--;
        if (this.flow === 0) return undefined;
      }
      if (this.flow === 0 && this.quote === 0) return undefined;
    }
    return undefined;
  }
}

function isSpace(c: number): boolean {
  return c === SPACE || c === TAB || c === LF || c === CR || Number.isNaN(c);
}

function skipSpaces(text: string, i: number, end: number): number {
  while (i < end && (text.charCodeAt(i) === SPACE || text.charCodeAt(i) === TAB)) i++;
  return i;
}

/** The offset of the quote closing the one at `i` on this line, or -1. */
function closingQuote(text: string, i: number, end: number): number {
  const quote = text.charCodeAt(i);
  for (let j = i + 1; j < end; j++) {
    const c = text.charCodeAt(j);
    if (quote === 0x22 && c === 0x5c) j++;
    else if (c === quote) {
      if (quote === 0x27 && text.charCodeAt(j + 1) === 0x27) j++;
      else return j;
    }
  }
  return -1;
}
