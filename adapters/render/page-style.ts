/** The page's only stylesheet, inlined (the CSP allows inline styles and nothing external). */
export const CONTENT_SECURITY_POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

const spans = Array.from({ length: 12 }, (_, i) => `.span-${i + 1}{grid-column:span ${i + 1}}`).join('');
const halfSpans = [1, 2, 3, 4, 5].map((n) => `.span-${n}`).join(',');
const fullSpans = [6, 7, 8, 9, 10, 11, 12].map((n) => `.span-${n}`).join(',');

export const PAGE_CSS = `
*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%;text-size-adjust:100%}
body{margin:0;background:#f5f7fb;color:#1e293b;font:15px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;-webkit-font-smoothing:antialiased}
.page{max-width:1240px;margin:0 auto;padding:32px 24px 40px}
.page-header{margin:0 0 24px}
h1{font-size:28px;line-height:1.2;font-weight:700;letter-spacing:-0.01em;margin:0 0 6px;color:#0f172a;overflow-wrap:anywhere}
.description{margin:0 0 8px;max-width:72ch;color:#475569;white-space:pre-line;overflow-wrap:anywhere}
.meta{margin:0;font-size:13px;color:#64748b}
.grid{display:grid;grid-template-columns:repeat(12,minmax(0,1fr));gap:16px}
${spans}
.panel{min-width:0;background:#fff;border:1px solid #e2e8f0;border-radius:12px;padding:16px 18px;box-shadow:0 1px 2px rgba(15,23,42,.04)}
.panel-title{font-size:15px;font-weight:600;margin:0 0 10px;color:#0f172a;overflow-wrap:anywhere}
.chart{margin:0}
.chart-svg{display:block;width:100%;height:auto}
.chart-narrow{display:none}
.panel-note{margin:8px 0 0;font-size:12px;color:#64748b}
.empty{display:flex;align-items:center;justify-content:center;min-height:120px;margin:0;padding:16px;border:1px dashed #cbd5e1;border-radius:8px;color:#64748b;font-size:14px;text-align:center;overflow-wrap:anywhere}
.stat .panel-title{font-size:13px;font-weight:500;color:#64748b;margin-bottom:4px}
.stat-value{margin:0;font-size:34px;line-height:1.15;font-weight:700;letter-spacing:-0.02em;color:#0f172a;font-variant-numeric:tabular-nums;overflow-wrap:anywhere}
.stat .empty{min-height:0;justify-content:flex-start;border:0;padding:0}
.table-wrap{overflow-x:auto;-webkit-overflow-scrolling:touch;border:1px solid #eef2f7;border-radius:8px}
table{border-collapse:collapse;width:100%;font-size:13px}
th,td{padding:7px 10px;text-align:left;vertical-align:top;border-bottom:1px solid #eef2f7;overflow-wrap:anywhere;min-width:4em}
th{background:#f8fafc;color:#334155;font-weight:600;white-space:nowrap}
tbody tr:last-child td{border-bottom:0}
tbody tr:nth-child(even) td{background:#fbfcfe}
.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.null{color:#94a3b8}
.prose{color:#334155;overflow-wrap:anywhere}
.prose>:first-child{margin-top:0}.prose>:last-child{margin-bottom:0}
.prose h3,.prose h4,.prose h5,.prose h6{color:#0f172a;line-height:1.3;margin:1.1em 0 .4em}
.prose h3{font-size:18px}.prose h4{font-size:16px}.prose h5,.prose h6{font-size:15px}
.prose p,.prose ul,.prose ol,.prose pre,.prose blockquote{margin:0 0 .8em}
.prose ul,.prose ol{padding-left:1.4em}
.prose a{color:#3451d1;text-decoration:underline;text-underline-offset:2px}
.prose code{font:13px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:#f1f5f9;border-radius:4px;padding:1px 4px}
.prose pre{background:#f1f5f9;border-radius:8px;padding:10px 12px;overflow-x:auto}
.prose pre code{background:none;padding:0}
.prose blockquote{border-left:3px solid #cbd5e1;padding-left:12px;color:#475569}
.page-footer{margin-top:28px;font-size:12px;color:#94a3b8}
.page-footer a{color:#64748b}
@media (max-width:960px){${halfSpans}{grid-column:span 6}${fullSpans}{grid-column:span 12}}
@media (max-width:640px){
.page{padding:20px 14px 28px}
h1{font-size:23px}
.grid{grid-template-columns:repeat(2,minmax(0,1fr));gap:12px}
.grid>.panel{grid-column:1/-1}
.grid>.stat{grid-column:span 1}
.panel{padding:14px}
.has-narrow .chart-wide{display:none}
.has-narrow .chart-narrow{display:block}
.stat-value{font-size:26px}
}
`
  .trim()
  .replace(/\n/g, '');
