import { createRequire } from 'node:module';
import { injectable } from 'inversify';
import type { DashboardSpec, Row } from '../../domain/dashboard-spec.js';
import type { CardContext, ImageContext, ImageRenderer } from '../../application/ports/image-renderer.js';

const require = createRequire(import.meta.url);
/** The font ships in an npm package, so text is drawn the same on every machine, with no system fonts read; each path is written out whole so dependency checkers see the package used. */
export const IMAGE_FONT_FILES = [
  require.resolve('@expo-google-fonts/inter/400Regular/Inter_400Regular.ttf'),
  require.resolve('@expo-google-fonts/inter/600SemiBold/Inter_600SemiBold.ttf'),
  require.resolve('@expo-google-fonts/inter/700Bold/Inter_700Bold.ttf'),
];

type Modules = [typeof import('./dashboard-image.js'), typeof import('@resvg/resvg-js')];

/**
 * PNGs of spec dashboards: the image SVG (dashboard-image.ts) rasterised by resvg off the event loop.
 * ECharts and resvg load on the first image, as the page renderer loads ECharts on its first page.
 */
@injectable()
export class PngImageRenderer implements ImageRenderer {
  private loading: Promise<Modules> | undefined;

  async renderPng(spec: DashboardSpec, data: Record<string, Row[]>, context: ImageContext): Promise<Uint8Array | null> {
    this.loading ??= Promise.all([import('./dashboard-image.js'), import('@resvg/resvg-js')]);
    const [{ dashboardImageSvg, IMAGE_FONT }, resvg] = await this.loading;
    const image = dashboardImageSvg(spec, data, context);
    return image && this.rasterise(image, IMAGE_FONT, resvg);
  }

  async renderCard(card: CardContext): Promise<Uint8Array> {
    this.loading ??= Promise.all([import('./dashboard-image.js'), import('@resvg/resvg-js')]);
    const [{ cardSvg, IMAGE_FONT }, resvg] = await this.loading;
    return this.rasterise(cardSvg(card), IMAGE_FONT, resvg);
  }

  private async rasterise(image: { svg: string; width: number }, font: string, resvg: Modules[1]): Promise<Uint8Array> {
    const rendered = await resvg.renderAsync(image.svg, {
      fitTo: { mode: 'width', value: image.width },
      font: { loadSystemFonts: false, fontFiles: IMAGE_FONT_FILES, defaultFontFamily: font, sansSerifFamily: font },
      logLevel: 'off',
    });
    return rendered.asPng();
  }
}
