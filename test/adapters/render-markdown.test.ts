import { expect } from 'chai';
import { renderInline, renderMarkdown } from '../../adapters/render/markdown.js';

describe('adapters: markdown subset for text panels', () => {
  it('renders headings below the page and panel headings', () => {
    expect(renderMarkdown('# One\n## Two\n#### Four ##')).to.equal('<h3>One</h3>\n<h4>Two</h4>\n<h6>Four</h6>');
  });

  it('joins paragraph lines and separates paragraphs on blank lines', () => {
    expect(renderMarkdown('first line\nsecond line\n\nnext')).to.equal('<p>first line\nsecond line</p>\n<p>next</p>');
    expect(renderMarkdown('hard  \nbreak')).to.equal('<p>hard<br>\nbreak</p>');
  });

  it('renders bold, italic and inline code', () => {
    expect(renderInline('**bold** and __also__, *it* and _too_, `x < y`')).to.equal(
      '<strong>bold</strong> and <strong>also</strong>, <em>it</em> and <em>too</em>, <code>x &lt; y</code>',
    );
    // Deliberately simple: emphasis does not nest inside bold; the inner pair wins and the rest stays text.
    expect(renderInline('**bold with *nested* italic**')).to.equal('**bold with <em>nested</em> italic**');
    expect(renderInline('*italic with **bold** inside*')).to.equal('*italic with <strong>bold</strong> inside*');
    expect(renderInline('snake_case_name stays')).to.equal('snake_case_name stays');
    expect(renderInline('2 * 3 * 4')).to.equal('2 * 3 * 4');
  });

  it('leaves markdown inside code alone', () => {
    expect(renderInline('`**not bold**`')).to.equal('<code>**not bold**</code>');
    expect(renderMarkdown('```\n# not a heading\n<b>x</b>\n```')).to.equal('<pre><code># not a heading\n&lt;b&gt;x&lt;/b&gt;</code></pre>');
    expect(renderMarkdown('```sql\nselect 1\n')).to.equal('<pre><code>select 1\n</code></pre>');
  });

  it('renders flat bullet and numbered lists, with wrapped continuation lines', () => {
    expect(renderMarkdown('- a\n* b\n+ c')).to.equal('<ul><li>a</li><li>b</li><li>c</li></ul>');
    expect(renderMarkdown('1. one\n2) two\n   more')).to.equal('<ol><li>one</li><li>two more</li></ol>');
    expect(renderMarkdown('intro\n- item\n\nafter')).to.equal('<p>intro</p>\n<ul><li>item</li></ul>\n<p>after</p>');
  });

  it('renders block quotes', () => {
    expect(renderMarkdown('> quoted **text**\n> more')).to.equal('<blockquote><p>quoted <strong>text</strong>\nmore</p></blockquote>');
  });

  it('keeps links to http, https and mailto only', () => {
    expect(renderInline('[docs](https://example.com/a?b=1&c=2)')).to.equal(
      '<a href="https://example.com/a?b=1&amp;c=2" rel="nofollow noopener noreferrer">docs</a>',
    );
    expect(renderInline('[mail](mailto:ops@example.com)')).to.equal('<a href="mailto:ops@example.com" rel="nofollow noopener noreferrer">mail</a>');
    expect(renderInline('[x](http://a.b)')).to.contain('href="http://a.b"');
    expect(renderInline('[click](javascript:alert(1))')).to.not.contain('<a');
    expect(renderInline('[click](javascript:alert`1`)')).to.equal('click');
    expect(renderInline('[click](data:text/html,hi)')).to.equal('click');
    expect(renderInline('[click](//evil.example)')).to.equal('click');
    expect(renderInline('[click](/relative)')).to.equal('click');
    expect(renderInline('[**bold** label](https://a.b)')).to.equal('<a href="https://a.b" rel="nofollow noopener noreferrer"><strong>bold</strong> label</a>');
  });

  it('cannot break out of the href attribute', () => {
    const html = renderInline('[x](https://a.b/"onmouseover="alert(1))');
    expect(html).to.not.match(/"\s*onmouseover=/);
    expect(html).to.not.contain('" onmouseover');
  });

  it('escapes raw HTML everywhere', () => {
    const hostile = '<script>alert(1)</script> <img src=x onerror=alert(1)> & "quotes" \'single\'';
    const expected = '&lt;script&gt;alert(1)&lt;/script&gt; &lt;img src=x onerror=alert(1)&gt; &amp; &quot;quotes&quot; &#39;single&#39;';
    expect(renderMarkdown(hostile)).to.equal(`<p>${expected}</p>`);
    expect(renderMarkdown(`# ${hostile}`)).to.equal(`<h3>${expected}</h3>`);
    expect(renderMarkdown(`- ${hostile}`)).to.equal(`<ul><li>${expected}</li></ul>`);
    expect(renderMarkdown(`**${hostile}**`)).to.equal(`<p><strong>${expected}</strong></p>`);
    expect(renderMarkdown(`[${hostile}](https://a.b)`)).to.not.contain('<script');
    expect(renderMarkdown('<svg onload=alert(1)>')).to.equal('<p>&lt;svg onload=alert(1)&gt;</p>');
  });

  it('shows unclosed markers as text', () => {
    expect(renderInline('**open and `tick and [label](')).to.equal('**open and `tick and [label](');
  });

  it('stays fast on hostile input (no quadratic scans)', () => {
    for (const unit of ['*', '**a', '[', '_a', '`', '[a](', '*a ', '__']) {
      const text = unit.repeat(Math.ceil(20_000 / unit.length)).slice(0, 20_000);
      const started = performance.now();
      const html = renderMarkdown(text);
      const elapsed = performance.now() - started;
      expect(html.length, unit).to.be.greaterThan(0);
      expect(elapsed, `${JSON.stringify(unit)} took ${elapsed.toFixed(0)} ms`).to.be.lessThan(300);
    }
  });
});
