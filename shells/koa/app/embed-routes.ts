import type Router from '@koa/router';
import type { Container } from 'inversify';
import type Koa from 'koa';
import type { WebSessionService } from '../../../application/auth/web-session-service.js';
import type { Settings } from '../../../application/ports/settings.js';
import { ManageEmbeds, type EmbedState } from '../../../application/sharing/manage-embeds.js';
import { parseDuration } from '../../../domain/durations.js';
import { invalid, isDomainError } from '../../../domain/errors.js';
import { embedUrl } from '../../presenters/sharing/embed-presenters.js';
import { DASHBOARDS_PATH, dashboardPath, type DetailInput } from './dashboards-pages.js';
import { embedSection, TEST_URL_LIFETIMES, type EmbedOnce } from './embed-section.js';
import { field, readForm, type FormFields } from './forms.js';
import type { Html } from './html.js';
import { onRefusal } from './refusals.js';
import { seeOther, type WebSecurity } from './web-security.js';

/** What the embed routes take from the dashboards pages (shells/koa/app/dashboards-routes.ts). */
export interface EmbedPageKit {
  security: WebSecurity;
  sessions: WebSessionService;
  signIn(ctx: Koa.Context, back: string): void;
  notFound(ctx: Koa.Context): void;
  checkedPost(ctx: Koa.Context, form: FormFields): boolean;
  showDetail(ctx: Koa.Context, userId: string, owner: string, slug: string, status: number, input: DetailInput): Promise<void>;
}

/**
 * The embed section of a dashboard's page, for a person who manages its sharing (the owner, or a
 * workspace admin); null for anyone else, who sees no section.
 */
export function embedPanel(container: Container) {
  const manage = container.get(ManageEmbeds);
  return {
    async section(userId: string, owner: string, slug: string, csrf: string, input: DetailInput): Promise<Html | null> {
      let state: EmbedState;
      try {
        state = await manage.status({ kind: 'person', userId }, { ownerName: owner }, slug);
      } catch (error) {
        if (isDomainError(error) && error.code === 'not_found') return null;
        throw error;
      }
      const problem = input.problem?.form.startsWith('embed-') ? input.problem : undefined;
      return embedSection({ csrf, path: dashboardPath(owner, state.slug), state, once: input.embed, problem, values: input.values });
    },
  };
}

type Step = (manage: ManageEmbeds, userId: string, owner: string, slug: string, form: FormFields, settings: Settings) => Promise<{ done: string } | { once: EmbedOnce }>;

/** Each form of the section: what it changes, and either the notice to go back with or what to show once. */
const STEPS: Record<string, { form: string; run: Step }> = {
  switch: {
    form: 'embed-switch',
    run: async (manage, userId, owner, slug, form) => {
      const changed = await manage.configure({ kind: 'person', userId }, { ownerName: owner }, slug, { enabled: field(form, 'enabled') === 'on' });
      return changed.secret ? { once: { secret: changed.secret } } : { done: changed.enabled ? 'embed-on' : 'embed-off' };
    },
  },
  origins: {
    form: 'embed-origins',
    run: async (manage, userId, owner, slug, form) => {
      await manage.configure({ kind: 'person', userId }, { ownerName: owner }, slug, { origins: { add: field(form, 'origin') } });
      return { done: 'embed-origins' };
    },
  },
  'origins/remove': {
    form: 'embed-origins',
    run: async (manage, userId, owner, slug, form) => {
      await manage.configure({ kind: 'person', userId }, { ownerName: owner }, slug, { origins: { remove: field(form, 'origin') } });
      return { done: 'embed-origins' };
    },
  },
  secret: {
    form: 'embed-secret',
    run: async (manage, userId, owner, slug) => ({ once: { secret: (await manage.rotateSecret({ kind: 'person', userId }, { ownerName: owner }, slug)).secret } }),
  },
  url: {
    form: 'embed-url',
    run: async (manage, userId, owner, slug, form, settings) => {
      const expires = field(form, 'expires');
      const lifetime = TEST_URL_LIFETIMES.some(([value]) => value === expires) ? parseDuration(expires) : null;
      if (lifetime === null) throw invalid('choose how long the URL works');
      const signed = await manage.signedUrl({ kind: 'person', userId }, { ownerName: owner }, slug, lifetime);
      return { once: { url: { href: embedUrl(settings, signed), expiresAt: signed.expiresAt } } };
    },
  },
};

/**
 * The section's POSTs, like the page's other forms: CSRF, sign-in, then the use case. A change goes back
 * to the page (303) with a notice; a new secret or a test URL is drawn on the answer itself, as it is
 * shown once. A refusal redraws the page with the text beside the form (a dashboard the person may not
 * manage reads as missing).
 */
export function embedRoutes(router: Router, kit: EmbedPageKit, container: Container, settings: Settings): void {
  const manage = container.get(ManageEmbeds);
  for (const [suffix, step] of Object.entries(STEPS)) {
    router.post(`${DASHBOARDS_PATH}/:owner/:slug/embed/${suffix}`, async (ctx) => {
      const form = await readForm(ctx);
      const { owner, slug } = ctx.params as Record<string, string>;
      if (!kit.checkedPost(ctx, form)) return;
      const userId = await kit.security.userId(ctx, kit.sessions);
      if (!userId) return kit.signIn(ctx, dashboardPath(owner!, slug!));
      const values = Object.fromEntries(Object.entries(form).filter(([key]) => key !== 'csrf').map(([key, value]) => [key, String(value)]));
      // A dashboard the person may not manage (or see) is the one "not found" page, as for a missing one.
      onRefusal(ctx, (ctx, error, status) => (status === 404 ? kit.notFound(ctx) : kit.showDetail(ctx, userId, owner!, slug!, status, { problem: { form: step.form, message: error.message }, values })), 'owned');
      const answer = await step.run(manage, userId, owner!, slug!, form, settings);
      if ('done' in answer) return seeOther(ctx, `${dashboardPath(owner!, slug!)}?done=${answer.done}#embed`);
      await kit.showDetail(ctx, userId, owner!, slug!, 200, { embed: answer.once, values });
    });
  }
}
