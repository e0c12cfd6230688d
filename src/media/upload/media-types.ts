import { open } from 'node:fs/promises';
import { fileTypeFromFile } from 'file-type';

export type MediaKind = 'image' | 'svg' | 'audio' | 'video' | 'document';

export interface AcceptedType {
  contentType: string;
  ext: string;
  kind: MediaKind;
}

/**
 * The allow-list (docs/media.md): what file-type detects from the bytes, mapped to the content
 * type we store and serve and the extension of the key. Anything else is a 415.
 */
const DETECTED: Record<string, AcceptedType> = {
  'image/jpeg': { contentType: 'image/jpeg', ext: 'jpg', kind: 'image' },
  'image/png': { contentType: 'image/png', ext: 'png', kind: 'image' },
  'image/apng': { contentType: 'image/apng', ext: 'png', kind: 'image' },
  'image/gif': { contentType: 'image/gif', ext: 'gif', kind: 'image' },
  'image/webp': { contentType: 'image/webp', ext: 'webp', kind: 'image' },
  'image/avif': { contentType: 'image/avif', ext: 'avif', kind: 'image' },
  'image/tiff': { contentType: 'image/tiff', ext: 'tif', kind: 'image' },
  'application/pdf': { contentType: 'application/pdf', ext: 'pdf', kind: 'document' },
  'application/rtf': { contentType: 'application/rtf', ext: 'rtf', kind: 'document' },
  'application/epub+zip': { contentType: 'application/epub+zip', ext: 'epub', kind: 'document' },
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': {
    contentType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    ext: 'docx',
    kind: 'document',
  },
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': {
    contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    ext: 'xlsx',
    kind: 'document',
  },
  'application/vnd.openxmlformats-officedocument.presentationml.presentation': {
    contentType: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
    ext: 'pptx',
    kind: 'document',
  },
  'application/vnd.oasis.opendocument.text': {
    contentType: 'application/vnd.oasis.opendocument.text',
    ext: 'odt',
    kind: 'document',
  },
  'application/vnd.oasis.opendocument.spreadsheet': {
    contentType: 'application/vnd.oasis.opendocument.spreadsheet',
    ext: 'ods',
    kind: 'document',
  },
  'application/vnd.oasis.opendocument.presentation': {
    contentType: 'application/vnd.oasis.opendocument.presentation',
    ext: 'odp',
    kind: 'document',
  },
  'audio/mpeg': { contentType: 'audio/mpeg', ext: 'mp3', kind: 'audio' },
  'audio/mp4': { contentType: 'audio/mp4', ext: 'm4a', kind: 'audio' },
  'audio/x-m4a': { contentType: 'audio/mp4', ext: 'm4a', kind: 'audio' },
  'audio/aac': { contentType: 'audio/aac', ext: 'aac', kind: 'audio' },
  'audio/ogg': { contentType: 'audio/ogg', ext: 'ogg', kind: 'audio' },
  'audio/opus': { contentType: 'audio/opus', ext: 'opus', kind: 'audio' },
  'audio/vnd.wave': { contentType: 'audio/wav', ext: 'wav', kind: 'audio' },
  'audio/x-flac': { contentType: 'audio/flac', ext: 'flac', kind: 'audio' },
  'audio/aiff': { contentType: 'audio/aiff', ext: 'aiff', kind: 'audio' },
  'video/mp4': { contentType: 'video/mp4', ext: 'mp4', kind: 'video' },
  'video/x-m4v': { contentType: 'video/x-m4v', ext: 'm4v', kind: 'video' },
  'video/webm': { contentType: 'video/webm', ext: 'webm', kind: 'video' },
  'video/quicktime': { contentType: 'video/quicktime', ext: 'mov', kind: 'video' },
  'video/ogg': { contentType: 'video/ogg', ext: 'ogv', kind: 'video' },
  'video/x-matroska': { contentType: 'video/x-matroska', ext: 'mkv', kind: 'video' },
  'video/vnd.avi': { contentType: 'video/x-msvideo', ext: 'avi', kind: 'video' },
  'video/mpeg': { contentType: 'video/mpeg', ext: 'mpg', kind: 'video' },
  'video/3gpp': { contentType: 'video/3gpp', ext: '3gp', kind: 'video' },
};

/**
 * Legacy Office files are all "Compound File Binary" to a byte sniffer (as are .msi installers),
 * so the client's extension picks between the three and anything else stays refused.
 */
const LEGACY_OFFICE: Record<string, AcceptedType> = {
  doc: { contentType: 'application/msword', ext: 'doc', kind: 'document' },
  xls: { contentType: 'application/vnd.ms-excel', ext: 'xls', kind: 'document' },
  ppt: { contentType: 'application/vnd.ms-powerpoint', ext: 'ppt', kind: 'document' },
};

const SVG: AcceptedType = { contentType: 'image/svg+xml', ext: 'svg', kind: 'svg' };

/** How much of a file the SVG check reads. */
export const HEAD_BYTES = 4096;

/** `<svg` as the first element, after an optional BOM, XML declaration, comments and doctype. */
export function looksLikeSvg(head: Buffer): boolean {
  let text = head.toString('utf8').replace(/^\uFEFF/, '');
  text = text.replace(/^\s*<\?xml[^>]*\?>/, '');
  for (;;) {
    const next = text.replace(/^\s*<!--[\s\S]*?-->/, '').replace(/^\s*<!DOCTYPE[^>[]*(?:\[[^\]]*\][^>[]*)?>/i, '');
    if (next === text) break;
    text = next;
  }
  return /^\s*<svg[\s>/]/.test(text);
}

/** The pure rule: what the sniffer found (and the first bytes) -> an accepted type, or null (415). */
export function classify(
  detectedMime: string | undefined,
  head: Buffer,
  clientName: string | undefined,
): AcceptedType | null {
  if (detectedMime && DETECTED[detectedMime]) return DETECTED[detectedMime];
  if (detectedMime === 'application/x-cfb') {
    const ext = /\.([a-z0-9]+)$/i.exec(clientName ?? '')?.[1]?.toLowerCase();
    return (ext && LEGACY_OFFICE[ext]) || null;
  }
  // file-type knows no SVG; with an XML declaration it says application/xml.
  if ((detectedMime === undefined || detectedMime === 'application/xml') && looksLikeSvg(head)) return SVG;
  return null;
}

/** Sniffs a spooled file. */
export async function detectType(path: string, clientName: string | undefined): Promise<AcceptedType | null> {
  const detected = await fileTypeFromFile(path);
  const handle = await open(path, 'r');
  try {
    const head = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await handle.read(head, 0, HEAD_BYTES, 0);
    return classify(detected?.mime, head.subarray(0, bytesRead), clientName);
  } finally {
    await handle.close();
  }
}

export function acceptedTypes(): string[] {
  return [
    ...new Set([...Object.values(DETECTED), ...Object.values(LEGACY_OFFICE), SVG].map((t) => t.contentType)),
  ].sort();
}
