/**
 * Who a client is, for per-client limits (console sign-in, MCP sessions): its IPv4 address as is
 * (also when IPv4-mapped, `::ffff:1.2.3.4`), an IPv6 address by its /64 prefix (one host usually
 * holds a whole /64, so per-address keys would hand it billions of fresh starts; a zone id is
 * dropped). Anything unparsable is its own key.
 */
export function clientKey(address: string): string {
  const bare = address.replace(/%.*$/, '').toLowerCase();
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(bare);
  if (mapped) return mapped[1]!;
  if (!bare.includes(':')) return bare;
  const halves = bare.split('::');
  if (halves.length > 2) return bare;
  const head = halves[0] ? halves[0].split(':') : [];
  const tail = halves.length === 2 && halves[1] ? halves[1].split(':') : [];
  const groups =
    halves.length === 2 ? [...head, ...Array<string>(8 - head.length - tail.length).fill('0'), ...tail] : head;
  if (groups.length !== 8 || !groups.every((g) => /^[0-9a-f]{1,4}$/.test(g))) return bare;
  return `${groups
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}
