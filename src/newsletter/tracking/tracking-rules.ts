/**
 * Which opens and clicks are machines' (docs/newsletter.md, "Tracking"): mail privacy proxies
 * that fetch every image on delivery (Apple Mail Privacy Protection, Google's and Yahoo's image
 * proxies), link scanners of mail gateways, anything within a few seconds of delivery, and a
 * recipient whose links are all clicked at once. They are recorded, flagged, and left out of
 * rates by default.
 */

/** Distinct links of one recipient clicked within this many ms: a scanner following every link. */
export const BURST_MS = 2000;
export const BURST_LINKS = 3;

const MACHINE_AGENTS: Array<[RegExp, string]> = [
  [/GoogleImageProxy|ggpht\.com/i, 'google_image_proxy'],
  [/YahooMailProxy/i, 'yahoo_proxy'],
  [/Barracuda|Mimecast|Proofpoint|SafeLinks|Symantec|Trend ?Micro|FireEye|Forcepoint|urldefense/i, 'link_scanner'],
  [/bot\b|crawler|spider|python-requests|curl\/|wget|Go-http-client|HeadlessChrome|PhantomJS/i, 'bot'],
];

/**
 * Apple's Mail Privacy Protection fetches from Apple's own network (17.0.0.0/8) with a bare
 * `Mozilla/5.0` agent; Google's image proxy from 66.249.80.0/20, 66.102.0.0/20 and 74.125.0.0/16.
 */
const MACHINE_NETS: Array<[number, number, string]> = [
  [ipv4('17.0.0.0'), 8, 'apple_mpp'],
  [ipv4('66.249.80.0'), 20, 'google_image_proxy'],
  [ipv4('66.102.0.0'), 20, 'google_image_proxy'],
  [ipv4('74.125.0.0'), 16, 'google_image_proxy'],
];

function ipv4(text: string): number {
  const parts = text.split('.').map(Number);
  if (parts.length !== 4 || parts.some((p) => !Number.isInteger(p) || p < 0 || p > 255)) return -1;
  return ((parts[0] << 24) >>> 0) + (parts[1] << 16) + (parts[2] << 8) + parts[3];
}

/** Why a request looks like a machine's by who sent it, or null. */
export function machineByClient(userAgent: string | undefined, ip: string | undefined): string | null {
  const agent = (userAgent ?? '').trim();
  for (const [re, reason] of MACHINE_AGENTS) if (re.test(agent)) return reason;
  const v4 = ip ? ipv4(ip.replace(/^::ffff:/, '')) : -1;
  if (v4 >= 0) {
    for (const [net, bits, reason] of MACHINE_NETS) {
      const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
      if ((v4 & mask) >>> 0 === net) return reason;
    }
  }
  if (agent === 'Mozilla/5.0') return 'apple_mpp';
  return null;
}

/**
 * Remembers the recent clicks of each recipient (in this instance) and tells when one is part of
 * a burst over several links: a scanner opening every link of the mail.
 */
export class ClickBursts {
  private readonly recent = new Map<string, Array<{ at: number; link: number }>>();

  constructor(private readonly max = 50_000) {}

  isBurst(key: string, link: number, at = Date.now()): boolean {
    const kept = (this.recent.get(key) ?? []).filter((c) => at - c.at <= BURST_MS);
    kept.push({ at, link });
    if (!this.recent.has(key) && this.recent.size >= this.max) this.recent.clear();
    this.recent.set(key, kept.slice(-20));
    return new Set(kept.map((c) => c.link)).size >= BURST_LINKS;
  }
}
