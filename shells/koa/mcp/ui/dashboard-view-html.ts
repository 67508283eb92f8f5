import { escapeHtml } from '../../../../domain/html.js';
import { SPEC_PAGE_OPENING } from '../../../../domain/page-theme.js';
import type { Settings } from '../../../../application/ports/settings.js';
import { VIEW_SCRIPT } from './browser-scripts.js';

/** The settings the view reads (its name and the dashboard host). */
export type ViewSettings = Pick<Settings, 'serviceName' | 'dashboardScheme' | 'dashboardDomain'>;

/**
 * The view's stylesheet. Colours come from the host's theme variables when it sends them
 * (`--color-*` of the extension), else from the view's own light and dark palettes.
 */
const VIEW_CSS = `
:root{color-scheme:light;
--bg:var(--color-background-primary,#ffffff);--bg2:var(--color-background-secondary,#f4f6fa);
--ink:var(--color-text-primary,#172033);--ink2:var(--color-text-secondary,#5b6678);
--line:var(--color-border-primary,#d9dee7);--accent:var(--color-ring-primary,#2456d6);
--danger-bg:var(--color-background-danger,#fdecec);--danger-ink:var(--color-text-danger,#9b1c1c);
--radius:var(--border-radius-md,8px);--font:var(--font-sans,system-ui,-apple-system,"Segoe UI",Roboto,sans-serif)}
:root[data-theme="dark"]{color-scheme:dark;
--bg:var(--color-background-primary,#15181e);--bg2:var(--color-background-secondary,#1e232b);
--ink:var(--color-text-primary,#e8ebf1);--ink2:var(--color-text-secondary,#a3adbd);
--line:var(--color-border-primary,#343b47);--accent:var(--color-ring-primary,#7aa2ff);
--danger-bg:var(--color-background-danger,#3a1d1f);--danger-ink:var(--color-text-danger,#ffb4b4)}
*,*::before,*::after{box-sizing:border-box}
html,body{margin:0;background:var(--bg);color:var(--ink);font:14px/1.45 var(--font)}
#app{padding:14px 16px 16px}
.head{display:flex;flex-wrap:wrap;align-items:flex-start;justify-content:space-between;gap:10px 16px}
.titles{min-width:0;flex:1 1 220px}
h1{margin:0;font-size:18px;line-height:1.3;font-weight:650;overflow-wrap:anywhere}
.meta{margin:2px 0 0;color:var(--ink2);font-size:13px;overflow-wrap:anywhere}
.url{margin:2px 0 0;color:var(--ink2);font-size:12px;overflow-wrap:anywhere}
button{font:inherit;font-weight:600;color:#fff;background:var(--accent);border:0;border-radius:var(--radius);
padding:8px 14px;min-height:40px;cursor:pointer}
:root[data-theme="dark"] button{color:#0b1020}
button:focus-visible{outline:2px solid var(--ink);outline-offset:2px}
button[disabled]{opacity:.5;cursor:default}
.params{margin-top:12px;padding:10px 12px;border:1px solid var(--line);border-radius:var(--radius);background:var(--bg2);
display:flex;flex-wrap:wrap;align-items:flex-end;gap:10px 12px}
.params-fields{display:contents}
.param{display:flex;flex-direction:column;gap:4px;min-width:0;max-width:100%;font-size:12px;font-weight:600;color:var(--ink2)}
.param-name{overflow-wrap:anywhere}
.range{display:flex;flex-wrap:wrap;gap:6px}
.params input,.params select{font:14px/1.3 var(--font);color:var(--ink);background:var(--bg);border:1px solid var(--line);
border-radius:6px;padding:6px 8px;min-height:36px;max-width:100%}
.params input:focus-visible,.params select:focus-visible{outline:2px solid var(--accent);outline-offset:1px}
.status{margin:10px 0 0;color:var(--ink2);font-size:12px}
.refusal{margin:12px 0 0;padding:10px 12px;border-radius:var(--radius);background:var(--danger-bg);color:var(--danger-ink);
white-space:pre-wrap;overflow-wrap:anywhere}
.preview{margin-top:12px;border:1px solid var(--line);border-radius:var(--radius);background:var(--bg2);
max-height:720px;overflow:auto;-webkit-overflow-scrolling:touch}
.preview pre{margin:0;padding:12px;white-space:pre-wrap;overflow-wrap:anywhere;font:12px/1.45 var(--font-mono,ui-monospace,Menlo,Consolas,monospace)}
.preview img{display:block;max-width:100%;height:auto}
.shot{margin-top:12px;border:1px solid var(--line);border-radius:var(--radius);overflow:hidden;background:var(--bg2)}
.shot img{display:block;width:100%;height:auto}
.page-box{display:block;position:relative;contain:strict;overflow:auto;width:100%}
[hidden]{display:none!important}
@media (max-width:420px){#app{padding:12px}.head button,.params button{width:100%}.param{flex:1 1 100%}
.params input,.params select{width:100%}.range input{flex:1 1 120px;width:auto}}
`;

/** JSON for an inline script: `<` escaped so no string in it can close the script element. */
const inlineJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

/**
 * The whole view: one self-contained HTML document (inline style and script, no external script,
 * font or image, no network access of its own). The settings it needs are inlined as JSON.
 */
export function dashboardViewHtml(settings: ViewSettings): string {
  const config = {
    serviceName: settings.serviceName,
    dashboardDomain: settings.dashboardDomain,
    // How a spec page begins: only such a page's parameter form becomes the view's controls.
    specPageOpening: SPEC_PAGE_OPENING,
  };
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(settings.serviceName)} dashboard</title>`,
    `<style>${VIEW_CSS}</style>`,
    '</head>',
    '<body>',
    '<main id="app">',
    '<header class="head" id="head" hidden>',
    '<div class="titles">',
    '<h1 id="name"></h1>',
    '<p class="meta" id="meta"></p>',
    '<p class="url" id="url"></p>',
    '</div>',
    '<button type="button" id="open">Open dashboard</button>',
    '</header>',
    '<section class="params" id="params" aria-label="Parameters" hidden>',
    '<div class="params-fields" id="params-fields"></div>',
    '<button type="button" id="apply">Apply</button>',
    '</section>',
    '<p class="status" id="status" role="status">Waiting for the dashboard…</p>',
    '<div class="refusal" id="refusal" role="alert" hidden></div>',
    '<figure class="shot" id="shot" hidden></figure>',
    '<section class="preview" id="preview" aria-label="Preview of the dashboard" hidden></section>',
    '</main>',
    `<script>var DASHPUB_VIEW_CONFIG = ${inlineJson(config)};</script>`,
    `<script>${VIEW_SCRIPT}</script>`,
    '</body>',
    '</html>',
  ].join('\n');
}
