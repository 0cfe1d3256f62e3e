/** The unified diff `platform-workflow diff` prints: hunks, context, and line ends. */
import assert from 'node:assert/strict';
import { unifiedDiff } from '../../kit/cli/unified-diff';

const labels = { a: 'a', b: 'b' };

describe('unifiedDiff', () => {
  it('answers undefined for the same text, and a hunk with three lines of context otherwise', () => {
    assert.equal(unifiedDiff('x\n', 'x\n', labels), undefined);
    const a = ['1', '2', '3', '4', '5', '6', '7', '8', '9', ''].join('\n');
    const b = a.replace('5\n', 'five\n');
    assert.equal(
      unifiedDiff(a, b, labels),
      ['--- a', '+++ b', '@@ -2,7 +2,7 @@', ' 2', ' 3', ' 4', '-5', '+five', ' 6', ' 7', ' 8', ''].join('\n'),
    );
  });

  it('shows a line added at the start, and a text that ends without a newline', () => {
    assert.equal(unifiedDiff('a\n', '# c\na\n', labels), ['--- a', '+++ b', '@@ -1,1 +1,2 @@', '+# c', ' a', ''].join('\n'));
    assert.equal(
      unifiedDiff('a\n', 'a', labels),
      ['--- a', '+++ b', '@@ -1,1 +1,1 @@', '-a', '+a', '\\ No newline at end of file', ''].join('\n'),
    );
  });

  it('keeps changes far apart in separate hunks', () => {
    const a = Array.from({ length: 30 }, (_, i) => `l${i}\n`).join('');
    const b = a.replace('l2\n', 'L2\n').replace('l25\n', 'L25\n');
    const diff = unifiedDiff(a, b, labels) ?? '';
    assert.deepEqual(diff.match(/^@@.*@@$/gm), ['@@ -1,6 +1,6 @@', '@@ -23,7 +23,7 @@']);
  });
});
