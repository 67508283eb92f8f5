/** The two colour themes of spec dashboards: their pages follow the reader's setting, their images pick one. */
export const IMAGE_THEMES = ['light', 'dark'] as const;
export type ImageTheme = (typeof IMAGE_THEMES)[number];

/** `?theme=` as given; anything but the two names means "no override". */
export function parseTheme(value: unknown): ImageTheme | undefined {
  return value === 'light' || value === 'dark' ? value : undefined;
}

/**
 * The opening every rendered spec page starts with: the host recognises spec pages by it, and a
 * `?theme=` override only ever replaces its `auto`.
 */
export const SPEC_PAGE_OPENING = '<!doctype html>\n<html lang="en" data-theme="auto">';

/**
 * The renderer writes a spec page's link-preview tags as one line starting with this; the line holds
 * only escaped text, so it ends at the first newline.
 */
export const PREVIEW_TAGS_START = '<meta property="og:type" content="website">';
