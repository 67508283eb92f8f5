import type { Container } from 'inversify';
import { DashboardResources } from '../../../../application/dashboards/dashboard-resources.js';
import { Settings } from '../../../../application/ports/settings.js';
import { subdomainOf } from '../../../../domain/scope.js';
import { DEFAULT_RESOURCE_MIME_TYPE, resourceUri, type ResourceSource } from '../resources.js';
import { pageJson } from '../../../presenters/dashboards/dashboard-presenters.js';

/** resources/list and resources/read over the dashboard use cases. */
export function dashboardResourceSource(container: Container, serviceName: string): ResourceSource {
  const resources = container.get(DashboardResources);
  const settings = container.get<Settings>(Settings);
  return {
    async list(principal, cursor) {
      const listed = await resources.list(principal, cursor);
      // The same dashboards list_dashboards answers, as resource entries.
      const page = { ...pageJson(settings, listed), owner: subdomainOf(listed.target) };
      return {
        resources: page.dashboards.map((d) => ({
          uri: resourceUri(serviceName, page.owner, d.slug),
          name: d.slug,
          title: d.name,
          description: `${d.name} (${d.visibility}): ${d.url}`,
          mimeType: d.files.find((f) => f.filename === 'index.html')?.content_type.split(';')[0] ?? DEFAULT_RESOURCE_MIME_TYPE,
        })),
        nextCursor: page.next_cursor,
      };
    },
    async read(principal, ref) {
      const { body, contentType } = await resources.read(principal, ref.handle, ref.slug, ref.query);
      const mimeType = contentType.split(';')[0].trim() || DEFAULT_RESOURCE_MIME_TYPE;
      return body.encoding === 'utf8' ? { uri: ref.uri, mimeType, text: body.content } : { uri: ref.uri, mimeType, blob: body.content };
    },
    async image(principal, ref) {
      const drawn = await resources.image(principal, ref.handle, ref.slug, { theme: ref.theme, query: ref.query });
      if (drawn.kind !== 'image') throw new Error('an image asked without an ETag answered not_modified');
      return { uri: ref.uri, mimeType: 'image/png', blob: drawn.body.toString('base64') };
    },
  };
}
