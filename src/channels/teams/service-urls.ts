// Where askgate may send the bot's token: a conversation's service URL is used only when it came in
// an authenticated activity (its JWT's `serviceurl` claim matched it) and its host is on the
// operator's allow-list (TEAMS_SERVICE_URL_HOSTS). HTTPS only, except a loopback host (local fakes).

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** The hosts service URLs may name: exact hosts, or `*.suffix` for any subdomain of `suffix` (lower case; descriptor.ts parses the setting). */
export class ServiceUrlHosts {
  constructor(private readonly patterns: readonly string[]) {}

  /** The service URL without its trailing slashes when it is https (or http to a loopback host) on an allowed host; else null. */
  check(serviceUrl: string): string | null {
    let url: URL;
    try {
      url = new URL(serviceUrl);
    } catch {
      return null;
    }
    const host = url.hostname.toLowerCase();
    const secure = url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK.has(host));
    if (!secure || url.username || url.password || url.search || url.hash) return null;
    const allowed = this.patterns.some((p) => (p.startsWith('*.') ? host.endsWith(p.slice(1)) : host === p));
    return allowed ? serviceUrl.replace(/\/+$/, '') : null;
  }
}
