import { isIP } from 'node:net';

/** What an IP address is, for `ASKGATE_WEBHOOK_ALLOWED_HOSTS`. */
export type AddressClass =
  'external' | 'private' | 'loopback' | 'link-local' | 'unspecified' | 'multicast' | 'reserved';

/** The environment variable named in every refusal. */
export const ALLOWED_HOSTS_SETTING = 'ASKGATE_WEBHOOK_ALLOWED_HOSTS';

interface Address {
  version: 4 | 6;
  value: bigint;
}

interface Range {
  version: 4 | 6;
  base: bigint;
  prefix: number;
}

/** `embedded` ranges carry an IPv4 address (NAT64, 6to4): public only if that address is. */
type Kind = AddressClass | 'embedded';

// RFC 6890 and the IANA special-purpose registries (IPv4 and IPv6), plus RFC 6598 (CGNAT), RFC 8215
// (local-use NAT64) and RFC 9637 (3fff::/20). Longest prefix wins; IPv6 outside 2000::/3 is reserved.
const TABLE: [string, Kind][] = [
  ['0.0.0.0/8', 'unspecified'],
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'private'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local'],
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'reserved'],
  ['192.0.2.0/24', 'reserved'],
  ['192.88.99.0/24', 'reserved'],
  ['192.168.0.0/16', 'private'],
  ['198.18.0.0/15', 'reserved'],
  ['198.51.100.0/24', 'reserved'],
  ['203.0.113.0/24', 'reserved'],
  ['224.0.0.0/4', 'multicast'],
  ['240.0.0.0/4', 'reserved'],
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['::/96', 'reserved'],
  ['64:ff9b::/96', 'embedded'],
  ['64:ff9b:1::/48', 'private'],
  ['100::/64', 'reserved'],
  ['2000::/3', 'external'],
  ['2001::/23', 'reserved'],
  ['2001:db8::/32', 'reserved'],
  ['2002::/16', 'embedded'],
  ['3fff::/20', 'reserved'],
  ['fc00::/7', 'private'],
  ['fe80::/10', 'link-local'],
  ['fec0::/10', 'reserved'],
  ['ff00::/8', 'multicast'],
];

/** ::ffff:0:0/96, IPv4-mapped IPv6: classified and matched as the IPv4 address it carries. */
const MAPPED: Range = { version: 6, base: 0xffffn << 32n, prefix: 96 };
const RANGES: [Range, Kind][] = TABLE.map(([cidr, kind]) => [parseCidr(cidr), kind] as [Range, Kind]).sort(
  (a, b) => b[0].prefix - a[0].prefix,
);

function parseV4(ip: string): bigint {
  return ip.split('.').reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n);
}

function parseV6(ip: string): bigint {
  let text = ip;
  let low = -1n;
  const lastColon = text.lastIndexOf(':');
  if (text.includes('.', lastColon)) {
    low = parseV4(text.slice(lastColon + 1));
    text = `${text.slice(0, lastColon + 1)}0:0`;
  }
  const [left = '', right] = text.split('::');
  const head = left === '' ? [] : left.split(':');
  const tail = right === undefined || right === '' ? [] : right.split(':');
  const groups =
    right === undefined ? head : [...head, ...Array<string>(8 - head.length - tail.length).fill('0'), ...tail];
  const value = groups.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g, 16)), 0n);
  return low >= 0n ? (value & ~0xffffffffn) | low : value;
}

/** Parses an IP literal (brackets and an IPv6 zone are dropped); IPv4-mapped IPv6 becomes IPv4. */
function parseAddress(ip: string): Address | undefined {
  const bare = ip.replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, '');
  const version = isIP(bare);
  if (version === 4) return { version: 4, value: parseV4(bare) };
  if (version !== 6) return undefined;
  const value = parseV6(bare);
  return inRange({ version: 6, value }, MAPPED) ? { version: 4, value: value & 0xffffffffn } : { version: 6, value };
}

function parseCidr(cidr: string): Range {
  const slash = cidr.indexOf('/');
  const address = parseAddress(cidr.slice(0, slash));
  if (!address) throw new Error(`bad CIDR in the table: ${cidr}`);
  return { version: address.version, base: address.value, prefix: Number(cidr.slice(slash + 1)) };
}

function bitsOf(version: 4 | 6): number {
  return version === 4 ? 32 : 128;
}

function inRange(address: Address, range: Range): boolean {
  if (address.version !== range.version) return false;
  const shift = BigInt(bitsOf(range.version) - range.prefix);
  return address.value >> shift === range.base >> shift;
}

function classOf(address: Address): AddressClass {
  const found = RANGES.find(([range]) => inRange(address, range));
  if (!found) return address.version === 4 ? 'external' : 'reserved';
  if (found[1] !== 'embedded') return found[1];
  // 6to4 (2002::/16) keeps the IPv4 address in bits 16..47, NAT64 in the low 32 bits.
  const shift = address.value >> 112n === 0x2002n ? 80n : 0n;
  const v4 = classOf({ version: 4, value: (address.value >> shift) & 0xffffffffn });
  return v4 === 'external' ? 'external' : 'reserved';
}

/**
 * Classifies an IP address (IPv4, IPv6, IPv4-mapped IPv6 as its IPv4 address); undefined when
 * `ip` is not an IP literal.
 */
export function classifyAddress(ip: string): AddressClass | undefined {
  const address = parseAddress(ip);
  return address && classOf(address);
}

/** `localhost` and its subdomains (RFC 6761): loopback names that never need DNS. */
export function isLocalhostName(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

const KEYWORDS = new Set(['external', 'private', 'loopback']);
const HOST_PATTERN = /^(?=.{1,253}$)[a-z0-9_*-]+(?:\.[a-z0-9_*-]+)*$/;

const ONLY_CIDR = 'only its CIDR range or "*" allows it';
const HINTS: Record<AddressClass, [what: string, how: string]> = {
  external: ['a public address', 'add "external" to allow public addresses'],
  private: ['a private address', 'add "private", or its CIDR range, to allow it'],
  loopback: ['a loopback address', 'add "loopback" to allow loopback addresses'],
  'link-local': ['a link-local address (such as cloud metadata)', ONLY_CIDR],
  unspecified: ['an unspecified address', ONLY_CIDR],
  multicast: ['a multicast address', ONLY_CIDR],
  reserved: ['a reserved or special-purpose address', ONLY_CIDR],
};

const refused = (host: string, what: string, how: string) =>
  `${host} is ${what}, which ${ALLOWED_HOSTS_SETTING} does not allow (${how})`;

/**
 * The parsed `ASKGATE_WEBHOOK_ALLOWED_HOSTS` (Gitea's convention): `external` (public unicast
 * addresses), `private` (RFC 1918, CGNAT 100.64/10, fc00::/7), `loopback`, `*` (anything),
 * host names with `*` wildcards and CIDR ranges, comma-separated. A host name is allowed when it
 * matches a pattern or resolves to allowed addresses.
 */
export class HostAllowList {
  private constructor(
    private readonly all: boolean,
    private readonly classes: ReadonlySet<AddressClass>,
    private readonly ranges: readonly Range[],
    private readonly names: readonly RegExp[],
  ) {}

  /** Parses a comma-separated list; throws an Error naming the first invalid entry. */
  static parse(spec: string): HostAllowList {
    const entries = spec
      .split(',')
      .map((e) => e.trim().toLowerCase())
      .filter((e) => e !== '');
    if (entries.length === 0) throw new Error('lists no host (use "external" for public addresses only)');
    const classes = new Set<AddressClass>();
    const ranges: Range[] = [];
    const names: RegExp[] = [];
    let all = false;
    for (const entry of entries) {
      if (entry === '*') all = true;
      else if (KEYWORDS.has(entry)) classes.add(entry as AddressClass);
      else if (entry.includes('/') || isIP(entry.replace(/^\[(.*)\]$/, '$1'))) ranges.push(parseRangeEntry(entry));
      else names.push(parseNameEntry(entry));
    }
    return new HostAllowList(all, classes, ranges, names);
  }

  /** Whether an IP address may be connected to. */
  allowsAddress(ip: string): boolean {
    if (this.all) return true;
    const address = parseAddress(ip);
    if (!address) return false;
    return this.classes.has(classOf(address)) || this.ranges.some((r) => inRange(address, r));
  }

  /** Whether a host name matches a host pattern (or `*`): then any address it resolves to is allowed. */
  matchesName(host: string): boolean {
    if (this.all) return true;
    const name = host.toLowerCase().replace(/\.$/, '');
    return isIP(name) === 0 && this.names.some((p) => p.test(name));
  }

  /**
   * Why a URL's host is refused before anything is sent (IP literals in any spelling the URL
   * parser normalises, and `localhost` names), or undefined. Other names are checked on the
   * addresses they resolve to, at connect time.
   */
  refusal(url: URL): string | undefined {
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    if (this.matchesName(host)) return undefined;
    if (isLocalhostName(host)) {
      return this.allowsAddress('127.0.0.1') || this.allowsAddress('::1')
        ? undefined
        : refused(host.slice(0, 100), 'a loopback name', HINTS.loopback[1]);
    }
    const kind = classifyAddress(host);
    if (kind === undefined || this.allowsAddress(host)) return undefined;
    return refused(host, ...HINTS[kind]);
  }
}

function parseRangeEntry(entry: string): Range {
  const [ip = '', prefixText, extra] = entry.split('/');
  const address = parseAddress(ip);
  if (!address || ip.includes('%') || extra !== undefined)
    throw new Error(`"${entry}" is not an IP address or CIDR range (e.g. 10.1.0.0/16, fd00::/8)`);
  const bits = bitsOf(address.version);
  if (isIP(ip.replace(/^\[(.*)\]$/, '$1')) === 6 && address.version === 4)
    throw new Error(`"${entry}": write IPv4-mapped addresses as IPv4 (a.b.c.d)`);
  const prefix = prefixText === undefined ? bits : /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : NaN;
  if (!(prefix >= 0 && prefix <= bits)) throw new Error(`"${entry}": the prefix length must be 0–${bits}`);
  const shift = BigInt(bits - prefix);
  if ((address.value >> shift) << shift !== address.value)
    throw new Error(`"${entry}" has bits set after the /${prefix} prefix`);
  return { version: address.version, base: address.value, prefix };
}

function parseNameEntry(entry: string): RegExp {
  const name = entry.replace(/\.$/, '');
  if (!HOST_PATTERN.test(name))
    throw new Error(
      `"${entry.slice(0, 100)}" is not a keyword (external, private, loopback, *), a CIDR range or a host name pattern (ASCII, e.g. *.example.com)`,
    );
  if (/(^|\.)[0-9]+$/.test(name) || /^0x/.test(name.split('.').pop() ?? ''))
    throw new Error(`"${entry}" looks like an IP address: write it as a.b.c.d or a CIDR range`);
  const keyword = name.includes('.') ? undefined : [...KEYWORDS].find((k) => editDistance(k, name) <= 2);
  if (keyword)
    throw new Error(
      `"${entry}" is not a keyword: did you mean "${keyword}"? (a one-label host name close to a keyword is refused as a likely typo)`,
    );
  return new RegExp(`^${name.replace(/\./g, '\\.').replace(/\*/g, '[a-z0-9_.-]*')}$`);
}

function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++)
      next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length]!;
}

/** The default: public addresses only. */
export const EXTERNAL_ONLY = HostAllowList.parse('external');
