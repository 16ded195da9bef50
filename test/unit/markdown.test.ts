import { describe, expect, it } from 'vitest';
import matter from 'gray-matter';
import { pageToMarkdown } from '../../src/lib/markdown.ts';

const page = (main: string, head = '') => `<!doctype html><html lang="ar" dir="rtl"><head>
<title>عنوان · Site</title><meta property="og:title" content="عنوان: مع نقطتين"><meta name="description" content="وصف &quot;مقتبس&quot;">
<link rel="canonical" href="https://example.com/ar/blog/x">${head}</head>
<body><nav><a href="/">Home</a></nav><main>${main}</main><footer>footer text</footer></body></html>`;

describe('pageToMarkdown', () => {
  it('starts with front matter holding exactly title, description, url and lang', () => {
    const md = pageToMarkdown(page('<h1>مرحبا</h1>'));
    const { data, content } = matter(md);
    expect(Object.keys(data)).toEqual(['title', 'description', 'url', 'lang']);
    expect(data).toEqual({
      title: 'عنوان: مع نقطتين',
      description: 'وصف "مقتبس"',
      url: 'https://example.com/ar/blog/x',
      lang: 'ar',
    });
    expect(content.trim()).toBe('# مرحبا');
  });

  it('keeps only <main>: no navigation, footer, scripts, styles or forms', () => {
    const md = pageToMarkdown(
      page(
        '<p>text</p><script>alert(1)</script><style>p{}</style><form><input name="q"><button>Go</button></form><nav>inner nav</nav>',
      ),
    );
    expect(md).toContain('text');
    for (const gone of ['Home', 'footer text', 'alert', 'p{}', 'Go', 'inner nav']) expect(md).not.toContain(gone);
  });

  it('makes every link and image absolute and drops unsafe schemes', () => {
    const md = pageToMarkdown(
      page(
        '<p><a href="/p/layla">profile</a> <a href="../y">sibling</a> <a href="#top">top</a> <a href="javascript:alert(1)">bad</a> <a href="mailto:a@b.co">mail</a></p><img src="/i.png" alt="صورة">',
      ),
    );
    expect(md).toContain('[profile](https://example.com/p/layla)');
    expect(md).toContain('[sibling](https://example.com/ar/y)');
    expect(md).toContain('[top](https://example.com/ar/blog/x#top)');
    expect(md).toContain('[mail](mailto:a@b.co)');
    expect(md).not.toContain('javascript:');
    expect(md).toContain('![صورة](https://example.com/i.png)');
  });

  it('keeps headings, lists, fenced code with its language, and GFM tables', () => {
    const md = pageToMarkdown(
      page(`<h2>قائمة</h2><ol><li>أول</li><li>ثاني</li></ol><ul><li>a</li><li>b</li></ul>
<pre><code class="language-sh">curl -H 'Accept: text/markdown' /
echo done</code></pre>
<table><thead><tr><th>A</th><th>B</th></tr></thead><tbody><tr><td>1</td><td>٢</td></tr></tbody></table>`),
    );
    expect(md).toContain('## قائمة');
    expect(md).toMatch(/^1\. أول$/m);
    expect(md).toMatch(/^2\. ثاني$/m);
    expect(md).toMatch(/^- a$/m);
    expect(md).toContain("```sh\ncurl -H 'Accept: text/markdown' /\necho done\n```");
    expect(md).toMatch(/^\| A +\| B +\|$/m);
    expect(md).toMatch(/^\| --- \| --- \|$/m);
    expect(md).toMatch(/^\| 1 +\| ٢ +\|$/m);
  });

  it('refuses a page without a canonical URL instead of writing a twin that cannot say where it came from', () => {
    expect(() => pageToMarkdown('<html><body><main>x</main></body></html>')).toThrow(/canonical/);
  });
});
