/**
 * A unified diff of two texts, line by line (Myers' O(ND) algorithm), as
 * `diff -u` prints it: `---`/`+++` labels, `@@` hunks with three lines of
 * context, and `\ No newline at end of file` where a text ends without one.
 * Lines are compared with their line ends, so a changed ending shows.
 */

/** Past this many differing lines, the texts are shown as all removed then all added (bounded work and memory). */
const MAX_EDITS = 5000;
const CONTEXT = 3;

type Op = { kind: ' ' | '-' | '+'; line: string };

/** Lines with their terminators; a final line without one is kept as it is. */
function linesOf(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

/** The edit script from `a` to `b`: common prefix and suffix trimmed, Myers in between. */
function editScript(a: string[], b: string[]): Op[] {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start += 1;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA -= 1;
    endB -= 1;
  }
  const middle = myers(a.slice(start, endA), b.slice(start, endB));
  return [
    ...a.slice(0, start).map((line) => ({ kind: ' ' as const, line })),
    ...middle,
    ...a.slice(endA).map((line) => ({ kind: ' ' as const, line })),
  ];
}

function myers(a: string[], b: string[]): Op[] {
  const n = a.length;
  const m = b.length;
  const max = Math.min(n + m, MAX_EDITS);
  const offset = max + 1;
  let v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= max; d += 1) {
    trace.push(v.slice());
    const next = v.slice();
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1] < v[offset + k + 1]) ? v[offset + k + 1] : v[offset + k - 1] + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x += 1;
        y += 1;
      }
      next[offset + k] = x;
      if (x >= n && y >= m) return backtrack(a, b, trace, offset, d);
    }
    v = next;
  }
  return [...a.map((line) => ({ kind: '-' as const, line })), ...b.map((line) => ({ kind: '+' as const, line }))];
}

function backtrack(a: string[], b: string[], trace: Int32Array[], offset: number, last: number): Op[] {
  const ops: Op[] = [];
  let x = a.length;
  let y = b.length;
  for (let d = last; d > 0; d -= 1) {
    const v = trace[d];
    const k = x - y;
    const down = k === -d || (k !== d && v[offset + k - 1] < v[offset + k + 1]);
    const prevK = down ? k + 1 : k - 1;
    const prevX = v[offset + prevK];
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      x -= 1;
      y -= 1;
      ops.push({ kind: ' ', line: a[x] });
    }
    if (down) {
      y -= 1;
      ops.push({ kind: '+', line: b[y] });
    } else {
      x -= 1;
      ops.push({ kind: '-', line: a[x] });
    }
  }
  while (x > 0 && y > 0) {
    x -= 1;
    y -= 1;
    ops.push({ kind: ' ', line: a[x] });
  }
  return ops.reverse();
}

function printed(op: Op): string[] {
  const text = op.line.endsWith('\n') ? op.line.slice(0, -1) : op.line;
  return op.line.endsWith('\n') ? [`${op.kind}${text}`] : [`${op.kind}${text}`, '\\ No newline at end of file'];
}

/** The unified diff from `a` to `b`, or undefined when the texts are the same. */
export function unifiedDiff(a: string, b: string, labels: { a: string; b: string }): string | undefined {
  if (a === b) return undefined;
  const ops = editScript(linesOf(a), linesOf(b));
  const out = [`--- ${labels.a}`, `+++ ${labels.b}`];
  // Positions (1-based) of each op in a and b.
  let lineA = 1;
  let lineB = 1;
  const at = ops.map((op) => {
    const here = { a: lineA, b: lineB };
    if (op.kind !== '+') lineA += 1;
    if (op.kind !== '-') lineB += 1;
    return here;
  });
  let i = 0;
  while (i < ops.length) {
    if (ops[i].kind === ' ') {
      i += 1;
      continue;
    }
    // A hunk: from CONTEXT lines before this change to CONTEXT lines after the last change within reach.
    const first = Math.max(0, i - CONTEXT);
    let end = i;
    for (let j = i; j < ops.length; j += 1) {
      if (ops[j].kind !== ' ') end = j;
      else if (j - end > 2 * CONTEXT) break;
    }
    const last = Math.min(ops.length - 1, end + CONTEXT);
    const hunk = ops.slice(first, last + 1);
    const countA = hunk.filter((op) => op.kind !== '+').length;
    const countB = hunk.filter((op) => op.kind !== '-').length;
    const startA = countA === 0 ? at[first].a - 1 : at[first].a;
    const startB = countB === 0 ? at[first].b - 1 : at[first].b;
    out.push(`@@ -${startA},${countA} +${startB},${countB} @@`, ...hunk.flatMap(printed));
    i = last + 1;
  }
  return `${out.join('\n')}\n`;
}
