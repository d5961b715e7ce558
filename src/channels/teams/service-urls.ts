// Where askgate may send the bot's token: a conversation's service URL is used only when it came in
// an authenticated activity (its JWT's `serviceurl` claim matched it) and its host is on the
// operator's allow-list (TEAMS_SERVICE_URL_HOSTS). HTTPS only, except a loopback host (local fakes).

/** The default allow-list: Teams' service URLs (`https://smba.trafficmanager.net/<region>/`) and the Bot Framework's. */
export const DEFAULT_SERVICE_URL_HOSTS = 'smba.trafficmanager.net,*.botframework.com';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);
const HOST = /^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/;

/** The hosts service URLs may name: exact hosts, or `*.suffix` for any subdomain of `suffix`. */
export class ServiceUrlHosts {
  private constructor(private readonly patterns: readonly string[]) {}

  /** Parses a comma-separated list; throws an Error naming the entry that is not a host. */
  static parse(spec: string): ServiceUrlHosts {
    const patterns = spec
      .split(',')
      .map((s) => s.trim().toLowerCase())
      .filter((s) => s !== '');
    if (patterns.length === 0) throw new Error('list at least one host');
    for (const p of patterns) if (!HOST.test(p)) throw new Error(`"${p}" is not a host name or *.domain`);
    return new ServiceUrlHosts(patterns);
  }

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
