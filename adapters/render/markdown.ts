import { escapeHtml } from '../../domain/html.js';

/**
 * A deliberately small markdown subset for text panels: headings, paragraphs, bold, italic, inline and
 * fenced code, flat lists, block quotes and links. Safe by construction: every piece of user text goes
 * through escapeHtml, and the only markup emitted is the fixed set of tags below. Raw HTML in the
 * source is shown as text, and links are kept only for http(s) and mailto targets.
 */
export function renderMarkdown(source: string): string {
  const lines = source.replace(/\r\n?/g, '\n').split('\n');
  const out: string[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (line.trim() === '') {
      i++;
      continue;
    }
    const fence = /^\s*(```|~~~)/.exec(line);
    if (fence) {
      const body: string[] = [];
      i++;
      while (i < lines.length && !lines[i]!.trim().startsWith(fence[1]!)) body.push(lines[i++]!);
      i++; // the closing fence, or past the end when it was never closed
      out.push(`<pre><code>${escapeHtml(body.join('\n'))}</code></pre>`);
      continue;
    }
    const heading = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      // Panel headings sit below the page's h1 and the panel's h2.
      const level = Math.min(6, heading[1]!.length + 2);
      out.push(`<h${level}>${renderInline(heading[2]!)}</h${level}>`);
      i++;
      continue;
    }
    if (/^\s{0,3}>/.test(line)) {
      const quoted: string[] = [];
      while (i < lines.length && /^\s{0,3}>/.test(lines[i]!)) quoted.push(lines[i++]!.replace(/^\s{0,3}>\s?/, ''));
      out.push(`<blockquote>${renderMarkdown(quoted.join('\n'))}</blockquote>`);
      continue;
    }
    const list = listItem(line);
    if (list) {
      const items: string[] = [];
      while (i < lines.length) {
        const item = listItem(lines[i]!);
        if (item && item.ordered === list.ordered) {
          items.push(item.text);
          i++;
        } else if (items.length > 0 && lines[i]!.trim() !== '' && /^\s+/.test(lines[i]!) && !isBlockStart(lines[i]!)) {
          items[items.length - 1] += ' ' + lines[i++]!.trim(); // a wrapped continuation line
        } else break;
      }
      const tag = list.ordered ? 'ol' : 'ul';
      out.push(`<${tag}>${items.map((text) => `<li>${renderInline(text)}</li>`).join('')}</${tag}>`);
      continue;
    }
    const paragraph: string[] = [];
    while (i < lines.length && lines[i]!.trim() !== '' && (paragraph.length === 0 || !isBlockStart(lines[i]!))) {
      // Two trailing spaces mark a hard break, so they survive; other edge whitespace goes.
      paragraph.push(lines[i++]!.trimStart().replace(/[ \t]+$/, (tail) => (tail.length >= 2 ? '  ' : '')));
    }
    out.push(`<p>${renderInline(paragraph.join('\n').trimEnd())}</p>`);
  }
  return out.join('\n');
}

function listItem(line: string): { ordered: boolean; text: string } | null {
  const bullet = /^\s*[-*+]\s+(.*)$/.exec(line);
  if (bullet) return { ordered: false, text: bullet[1]! };
  const numbered = /^\s*\d{1,9}[.)]\s+(.*)$/.exec(line);
  if (numbered) return { ordered: true, text: numbered[1]! };
  return null;
}

function isBlockStart(line: string): boolean {
  return /^\s*(```|~~~)/.test(line) || /^\s{0,3}#{1,6}\s/.test(line) || /^\s{0,3}>/.test(line) || listItem(line) !== null;
}

interface InlineRule {
  pattern: RegExp;
  render: (match: RegExpExecArray) => string;
}

// Every pattern stops at a newline or at its own delimiter, so scanning stays linear even on hostile input.
const INLINE_RULES: InlineRule[] = [
  { pattern: /`([^`\n]+)`/g, render: (m) => `<code>${escapeHtml(m[1]!)}</code>` },
  { pattern: /\[([^\[\]\n]{1,500})\]\(\s*([^()\s]{1,2000})\s*\)/g, render: (m) => link(m[1]!, m[2]!) },
  { pattern: /\*\*(?=[^\s*])([^*\n]*[^\s*])\*\*/g, render: (m) => `<strong>${renderInline(m[1]!)}</strong>` },
  { pattern: /__(?=[^\s_])([^_\n]*[^\s_])__/g, render: (m) => `<strong>${renderInline(m[1]!)}</strong>` },
  { pattern: /\*(?=[^\s*])([^*\n]*[^\s*])\*/g, render: (m) => `<em>${renderInline(m[1]!)}</em>` },
  { pattern: /(?<![A-Za-z0-9_])_(?=[^\s_])([^_\n]*[^\s_])_(?![A-Za-z0-9_])/g, render: (m) => `<em>${renderInline(m[1]!)}</em>` },
];

/** Takes the earliest construct each time; everything between constructs is escaped text. */
export function renderInline(text: string): string {
  const patterns = INLINE_RULES.map((rule) => new RegExp(rule.pattern.source, 'g'));
  // A rule's next match is reused until the scan passes it, and a rule that found nothing is never asked again.
  const next: Array<RegExpExecArray | null | undefined> = INLINE_RULES.map(() => undefined);
  let out = '';
  let pos = 0;
  while (pos < text.length) {
    let best = -1;
    for (let r = 0; r < INLINE_RULES.length; r++) {
      let match = next[r];
      if (match === null) continue;
      if (match === undefined || match.index < pos) {
        patterns[r]!.lastIndex = pos;
        match = next[r] = patterns[r]!.exec(text);
        if (match === null) continue;
      }
      if (best === -1 || match.index < next[best]!.index) best = r;
    }
    if (best === -1) break;
    const match = next[best]!;
    out += escapeText(text.slice(pos, match.index)) + INLINE_RULES[best]!.render(match);
    pos = match.index + match[0].length;
  }
  return out + escapeText(text.slice(pos));
}

/** Line breaks inside a paragraph stay soft; a trailing double space or backslash makes a hard break. */
function escapeText(text: string): string {
  return escapeHtml(text).replace(/( {2,}|\\)\n/g, '<br>\n');
}

const SAFE_URL = /^(https?:\/\/[^\s]+|mailto:[^\s]+)$/i;

function link(label: string, target: string): string {
  if (!SAFE_URL.test(target)) return renderInline(label);
  return `<a href="${escapeHtml(target)}" rel="nofollow noopener noreferrer">${renderInline(label)}</a>`;
}
