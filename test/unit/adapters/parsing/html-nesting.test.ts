import {
  MAX_HTML_NESTING,
  nestsDeeperThan,
} from '../../../../layers/core/adapters/parsing/html-nesting';
import { withinScanBudget } from '../../../support/scan-work';

describe('Function: nestsDeeperThan', () => {
  it.each([
    ['closed elements', '<div><div><div>x</div></div></div>', 3, false],
    ['one level too deep', '<div><div><div><div>x</div></div></div></div>', 3, true],
    ['void elements', `<div>${'<br><img src=x><input>'.repeat(100)}`, 1, false],
    ['implied paragraph ends', '<p>one<p>two<p>three'.repeat(50), 1, false],
    ['implied list item ends', `<ul>${'<li>item'.repeat(100)}`, 2, false],
    ['implied cell and row ends', `<table>${'<tr><td>a<td>b'.repeat(100)}`, 3, false],
    [
      'an end tag closing what was left open inside',
      `<div>${'<span>'.repeat(10)}</div>`.repeat(10),
      11,
      false,
    ],
    ['stray end tags', `${'</b>'.repeat(100)}<div>x</div>`, 1, false],
    ['tags inside comments', `<!--${'<div>'.repeat(100)}--><p>x</p>`, 1, false],
    ['tags inside scripts', `<script>${'"<div>"+'.repeat(100)}</SCRIPT><p>x</p>`, 1, false],
    ['unclosed inline elements', '<span>'.repeat(20), 10, true],
  ])('handles %s', (_case, html, limit, expected) => {
    expect(nestsDeeperThan(html, limit)).toBe(expected);
  });

  it('runs in linear time on hostile input (characters examined, not milliseconds)', () => {
    // Prepare: shapes that make naive scanners quadratic.
    const inputs = [
      '<div'.repeat(1_000_000), // no closing '>' anywhere
      `${'<a>'.repeat(MAX_HTML_NESTING)}${'</x>'.repeat(500_000)}`, // stray end tags under a deep stack
      '<script>'.repeat(500_000), // raw text never closed
    ];

    // Act / Assess: a few looks at each character; a scan that went back over
    // the input for each tag would pass the budget early in the first input.
    for (const html of inputs) {
      const { result } = withinScanBudget(8 * html.length, () => nestsDeeperThan(html));
      expect(result).toBe(false);
    }
  });
});
