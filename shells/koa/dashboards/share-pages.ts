import { escapeHtml } from '../../../domain/html.js';
import { page } from './pages.js';

/**
 * The one page a password-protected share link shows first: one password field, a CSRF token, no script.
 * `problem` is what went wrong with the last try (a wrong password, too many tries).
 */
export function sharePasswordPage(displayName: string, csrf: string, problem: string | null): string {
  const error = problem === null ? '' : `<p class="error" role="alert" id="share-problem">${escapeHtml(problem)}</p>`;
  const described = problem === null ? '' : ' aria-describedby="share-problem"';
  return page(
    displayName,
    'Password required',
    `<div class="code">Shared dashboard</div><h1>This dashboard is protected by a password</h1>` +
      `<p>Enter the password you were given with the link.</p>${error}` +
      `<form method="post" action="/_share">` +
      `<input type="hidden" name="csrf" value="${escapeHtml(csrf)}">` +
      `<label for="share-password">Password</label>` +
      `<input id="share-password" name="password" type="password" autocomplete="current-password" required autofocus${described}>` +
      `<button type="submit">Open dashboard</button></form>`,
  );
}

/** A share link that no longer works, or never did: the same words for every case, so none can be told apart. */
export function shareUnavailablePage(displayName: string): string {
  return page(
    displayName,
    'Link not available',
    `<div class="code">404 · Shared link</div><h1>This link does not work</h1>` +
      `<p>It may have been revoked, paused or have expired, or the address is not complete. Ask whoever shared it for a new one.</p>`,
  );
}
