import { RENDERED_DATA, RENDERED_PAGE, type DashboardSpec, type Row } from '../../domain/dashboard-spec.js';
import type { PageRenderer, RenderContext } from '../ports/page-renderer.js';

const encoder = new TextEncoder();

/**
 * Draws a spec into the files it renders to (`RENDERED_FILES`): the page and the rows it was drawn from.
 * Publishing a spec and refreshing one both store exactly these bytes.
 */
export async function renderSpecFiles(
  renderer: PageRenderer,
  spec: DashboardSpec,
  data: Record<string, Row[]>,
  context: RenderContext,
): Promise<Record<string, Uint8Array>> {
  const page = await renderer.render(spec, data, context);
  return { [RENDERED_PAGE]: encoder.encode(page.html), [RENDERED_DATA]: encoder.encode(page.dataJson) };
}
