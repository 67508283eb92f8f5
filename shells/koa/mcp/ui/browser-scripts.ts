import { readFileSync } from 'node:fs';

/** A browser script compiled by `npm run build` from browser/ (its own tsconfig, DOM types), read once at start-up. */
function compiled(name: string): string {
  const text = readFileSync(new URL(`./browser/${name}.js`, import.meta.url), 'utf8');
  // Inlined into a script element, the text must not be able to close it.
  if (/<\/script/i.test(text)) throw new Error(`browser/${name}.js cannot be inlined: it contains "</script"`);
  return text;
}

/**
 * The view's inline script: the preview's sanitiser (the global DASHPUB_SANITISER) and the parameter controls
 * (DASHPUB_PARAMS), then the view that uses them.
 */
export const VIEW_SCRIPT = `${compiled('preview-sanitiser')}\n${compiled('param-controls')}\n${compiled('dashboard-view')}`;
