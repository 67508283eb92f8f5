/** A share link's path carries its token, a bearer secret: log lines show the prefix only. */
const SHARE_TOKEN_PATH = /^\/_share\/[^/?]*/;

/** The path a log line shows: without its query, and with any share-link token taken out. */
export function loggedPath(url: string | undefined): string {
  const path = (url ?? '').split('?', 1)[0]!;
  return path.startsWith('/_share/') ? path.replace(SHARE_TOKEN_PATH, '/_share/…') : path;
}
