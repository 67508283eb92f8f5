import { inject, injectable } from 'inversify';
import { embedExpiryAccepted, embedSignedMessage, parseEmbedQuery } from '../../domain/embeds.js';
import { DEFAULT_FILENAME } from '../../domain/names.js';
import { parseTheme } from '../../domain/page-theme.js';
import { Clock } from '../ports/clock.js';
import { DashboardAddresses } from '../ports/dashboard-addresses.js';
import { EmbedSigner } from '../ports/embed-signer.js';
import { EmbedStore } from '../ports/embed-store.js';
import { HostingCatalog, type FileBytes } from './hosting-catalog.js';
import { hasParamForm, themedPage, withoutParamForm, withoutPreviewTags } from './page-variants.js';
import { ParamPages } from './param-pages.js';

/** What `/_embed/<slug>` answers: the dashboard's page for framing by `origins`, or the plain 404. */
export type EmbedOutcome =
  | { kind: 'page'; body: Buffer; contentType: string; dashboardId: string; origins: string[] }
  | { kind: 'not_found' };

const SLUG = /^[a-z0-9-]{1,64}$/;
const NOT_FOUND: EmbedOutcome = { kind: 'not_found' };

/**
 * The dashboards host's side of signed embeds. A valid signature is the capability, for public and private
 * dashboards alike, so every check ends in the same not-found: a malformed or unsigned query, an expiry
 * past or more than 30 days ahead, embedding off, no secret, or a signature that is not the owner's
 * current secret's over this path, the parameters and the expiry. Settings and secret are read on every
 * request, so turning embedding off or rotating the secret ends old URLs at once on every instance. Only the
 * page is served (docs/decisions/0171-embeds-serve-the-page-only.md), drawn for the signed parameter values
 * and without the form, as the viewer can change none (docs/decisions/0265-embeds-lock-parameters.md).
 */
@injectable()
export class EmbedAccess {
  constructor(
    @inject(HostingCatalog) private readonly catalog: HostingCatalog,
    @inject(EmbedStore) private readonly store: EmbedStore,
    @inject(EmbedSigner) private readonly signer: EmbedSigner,
    @inject(Clock) private readonly clock: Clock,
    @inject(ParamPages) private readonly params: ParamPages,
    @inject(DashboardAddresses) private readonly addresses: DashboardAddresses,
  ) {}

  /** `slug` as it follows `/_embed/` in the raw path; `query` the raw query string without `?`. */
  async open(subdomain: string, slug: string, query: string): Promise<EmbedOutcome> {
    const signed = parseEmbedQuery(query);
    if (!signed || !SLUG.test(slug) || !embedExpiryAccepted(signed.exp, this.clock.now().getTime())) return NOT_FOUND;
    const site = await this.catalog.site(subdomain);
    if (!site) return NOT_FOUND;
    let found = await this.catalog.lookup(site, slug);
    // A rename keeps the signed old path working, as the old address keeps working (it cannot redirect: the signature names the path).
    if (found?.kind === 'alias') found = await this.catalog.lookup(site, found.dashboard.slug);
    if (!found || found.kind !== 'dashboard') return NOT_FOUND;
    const { dashboard, manifest } = found;
    const settings = await this.store.settings(dashboard.id);
    const secret = settings.enabled ? await this.store.secret(dashboard.owner) : null;
    if (!secret || !this.signer.verify(secret.secret, embedSignedMessage(slug, signed.exp, signed.params), signed.sig)) return NOT_FOUND;
    const name = Object.hasOwn(manifest, DEFAULT_FILENAME) ? DEFAULT_FILENAME : Object.keys(manifest).sort()[0];
    const entry = name === undefined ? undefined : manifest[name];
    if (!entry) return NOT_FOUND;
    let file: FileBytes | null = await this.catalog.file(entry);
    if (!file) throw new Error(`file ${entry.sha256} of dashboard ${dashboard.id} is missing from storage`);
    const locked = new URLSearchParams(signed.params as Array<[string, string]>).toString();
    if (locked !== '' && name === DEFAULT_FILENAME && hasParamForm(file.body)) {
      const pageUrl = this.addresses.pageUrl(site.subdomain, dashboard.slug);
      file = (await this.params.page({ dashboard, versionId: dashboard.currentVersionId, manifest, page: file, pageUrl, query: locked })) ?? file;
    }
    // An embed is not a public answer, so a spec page's link-preview tags stay out of it (decision 0202).
    let body = withoutParamForm(dashboard.visibility === 'public' ? file.body : withoutPreviewTags(file.body));
    const theme = parseTheme(new URLSearchParams(locked).get('theme'));
    if (theme !== undefined) body = themedPage(body, theme);
    return { kind: 'page', body, contentType: entry.contentType, dashboardId: dashboard.id, origins: settings.origins };
  }
}
