import { fileURLToPath } from 'node:url';
import { injectable } from 'inversify';
import type { DashboardSpec, Row } from '../../domain/dashboard-spec.js';
import type { CardContext, ImageContext, ImageRenderer } from '../../application/ports/image-renderer.js';

/**
 * Inter (SIL Open Font License, `assets/fonts/OFL.txt`) ships in the repository, so text is drawn the same on
 * every machine with no system fonts read. resvg takes font files by path only; from `dist/adapters/render/`
 * the repository's root is three folders up.
 */
export const IMAGE_FONT_FILES = ['Inter_400Regular.ttf', 'Inter_600SemiBold.ttf', 'Inter_700Bold.ttf'].map((file) =>
  fileURLToPath(new URL(`../../../assets/fonts/${file}`, import.meta.url)),
);

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
