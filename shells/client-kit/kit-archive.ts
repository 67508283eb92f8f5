import { strToU8, zipSync, type Zippable } from 'fflate';
import { clientKitFiles, kitDirectoryName, type ClientKitSettings } from './client-setup.js';

/** The client kit as a .zip whose one top folder is the kit directory, for the `/connect` download. */
export function clientKitZip(settings: ClientKitSettings): Uint8Array {
  const folder = kitDirectoryName(settings);
  const entries: Zippable = {};
  for (const file of clientKitFiles(settings, folder)) entries[`${folder}/${file.path}`] = strToU8(file.content);
  return zipSync(entries, { level: 6 });
}
