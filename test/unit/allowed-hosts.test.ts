import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { EXTERNAL_ONLY, HostAllowList, classifyAddress, type AddressClass } from '../../src/webhooks/allowed-hosts.js';
import { allowedAddresses } from '../../src/webhooks/http-sender.js';

// First and last address of every special-purpose range, and the neighbours just outside.
const V4: [string, AddressClass][] = [
  ['0.0.0.0', 'unspecified'],
  ['0.255.255.255', 'unspecified'],
  ['1.0.0.0', 'external'],
  ['9.255.255.255', 'external'],
  ['10.0.0.0', 'private'],
  ['10.255.255.255', 'private'],
  ['11.0.0.0', 'external'],
  ['100.63.255.255', 'external'],
  ['100.64.0.0', 'private'],
  ['100.127.255.255', 'private'],
  ['100.128.0.0', 'external'],
  ['126.255.255.255', 'external'],
  ['127.0.0.0', 'loopback'],
  ['127.0.0.1', 'loopback'],
  ['127.255.255.255', 'loopback'],
  ['128.0.0.0', 'external'],
  ['169.253.255.255', 'external'],
  ['169.254.0.0', 'link-local'],
  ['169.254.169.254', 'link-local'],
  ['169.254.255.255', 'link-local'],
  ['169.255.0.0', 'external'],
  ['172.15.255.255', 'external'],
  ['172.16.0.0', 'private'],
  ['172.31.255.255', 'private'],
  ['172.32.0.0', 'external'],
  ['191.255.255.255', 'external'],
  ['192.0.0.0', 'reserved'],
  ['192.0.0.255', 'reserved'],
  ['192.0.1.0', 'external'],
  ['192.0.2.0', 'reserved'],
  ['192.0.2.255', 'reserved'],
  ['192.0.3.0', 'external'],
  ['192.88.98.255', 'external'],
  ['192.88.99.0', 'reserved'],
  ['192.88.99.255', 'reserved'],
  ['192.88.100.0', 'external'],
  ['192.167.255.255', 'external'],
  ['192.168.0.0', 'private'],
  ['192.168.255.255', 'private'],
  ['192.169.0.0', 'external'],
  ['198.17.255.255', 'external'],
  ['198.18.0.0', 'reserved'],
  ['198.19.255.255', 'reserved'],
  ['198.20.0.0', 'external'],
  ['198.51.99.255', 'external'],
  ['198.51.100.0', 'reserved'],
  ['198.51.100.255', 'reserved'],
  ['198.51.101.0', 'external'],
  ['203.0.112.255', 'external'],
  ['203.0.113.0', 'reserved'],
  ['203.0.113.255', 'reserved'],
  ['203.0.114.0', 'external'],
  ['223.255.255.255', 'external'],
  ['224.0.0.0', 'multicast'],
  ['239.255.255.255', 'multicast'],
  ['240.0.0.0', 'reserved'],
  ['255.255.255.254', 'reserved'],
  ['255.255.255.255', 'reserved'],
  ['8.8.8.8', 'external'],
  ['93.184.216.34', 'external'],
];

const V6: [string, AddressClass][] = [
  ['::', 'unspecified'],
  ['::1', 'loopback'],
  ['[::1]', 'loopback'],
  ['0:0:0:0:0:0:0:1', 'loopback'],
  ['::2', 'reserved'],
  ['::7f00:1', 'reserved'],
  ['::127.0.0.1', 'reserved'], // IPv4-compatible (deprecated)
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:7f00:1', 'loopback'],
  ['::FFFF:7F00:1', 'loopback'],
  ['::ffff:10.0.0.1', 'private'],
  ['::ffff:169.254.169.254', 'link-local'],
  ['::ffff:0.0.0.0', 'unspecified'],
  ['::ffff:8.8.8.8', 'external'],
  ['::ffff:0:127.0.0.1', 'reserved'], // IPv4-translated (RFC 2765), not mapped
  ['64:ff9b::8.8.8.8', 'external'],
  ['64:ff9b::7f00:1', 'reserved'],
  ['64:ff9b::a9fe:a9fe', 'reserved'],
  ['64:ff9b::10.0.0.1', 'reserved'],
  ['64:ff9b:1::1', 'private'],
  ['64:ff9b:1:ffff:ffff:ffff:ffff:ffff', 'private'],
  ['100::', 'reserved'],
  ['100::ffff:ffff:ffff:ffff', 'reserved'],
  ['1fff:ffff::1', 'reserved'],
  ['2000::1', 'external'],
  ['2001::1', 'reserved'],
  ['2001:0:4136:e378::1', 'reserved'],
  ['2001:20::1', 'reserved'],
  ['2001:1ff:ffff:ffff::1', 'reserved'],
  ['2001:200::1', 'external'],
  ['2001:db7:ffff::1', 'external'],
  ['2001:db8::', 'reserved'],
  ['2001:db8:ffff:ffff:ffff:ffff:ffff:ffff', 'reserved'],
  ['2001:db9::1', 'external'],
  ['2002:808:808::1', 'external'],
  ['2002:7f00:1::', 'reserved'],
  ['2002:a00:1::', 'reserved'],
  ['2002:a9fe:a9fe::', 'reserved'],
  ['2002:c0a8:101::', 'reserved'],
  ['2606:4700:4700::1111', 'external'],
  ['2a00:1450:4001:81c::200e', 'external'],
  ['3fff::1', 'reserved'],
  ['3fff:fff:ffff::1', 'reserved'],
  ['3fff:1000::1', 'external'],
  ['4000::1', 'reserved'],
  ['5f00::1', 'reserved'],
  ['fbff:ffff::1', 'reserved'],
  ['fc00::', 'private'],
  ['fd00:ec2::254', 'private'],
  ['fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'private'],
  ['fe80::', 'link-local'],
  ['fe80::1%eth0', 'link-local'],
  ['FE80::1', 'link-local'],
  ['febf:ffff::1', 'link-local'],
  ['fec0::1', 'reserved'],
  ['feff::1', 'reserved'],
  ['ff00::', 'multicast'],
  ['ff02::1', 'multicast'],
  ['ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'multicast'],
];

describe('classifyAddress (RFC 6890 and the IANA special-purpose registries)', () => {
  it.each(V4)('IPv4 %s is %s', (ip, expected) => expect(classifyAddress(ip)).toBe(expected));
  it.each(V6)('IPv6 %s is %s', (ip, expected) => expect(classifyAddress(ip)).toBe(expected));
  it.each([
    'example.com',
    '127.1',
    '0x7f000001',
    '2130706433',
    '0177.0.0.1',
    '1.2.3.4.5',
    '::ffff::1',
    '',
    ' 127.0.0.1',
    'localhost',
  ])('%j is not an IP literal', (text) => {
    expect(classifyAddress(text)).toBeUndefined();
  });
});

describe('HostAllowList.parse', () => {
  it.each([
    [
      'external',
      ['8.8.8.8', '2606:4700::1'],
      ['127.0.0.1', '10.0.0.1', '100.64.0.1', '169.254.169.254', '::1', 'fd00::1', '::ffff:127.0.0.1', '192.0.2.1'],
    ],
    [
      'loopback',
      ['127.0.0.1', '127.9.9.9', '::1', '::ffff:127.0.0.1'],
      ['8.8.8.8', '10.0.0.1', '0.0.0.0', '169.254.169.254'],
    ],
    [
      'private',
      ['10.0.0.1', '172.16.5.4', '192.168.1.1', '100.64.0.1', 'fc00::1', 'fd12::1', '::ffff:192.168.1.1'],
      ['127.0.0.1', '8.8.8.8', '169.254.169.254', 'fe80::1'],
    ],
    ['*', ['127.0.0.1', '169.254.169.254', '0.0.0.0', '8.8.8.8', '::', 'ff02::1'], []],
    [
      '10.1.0.0/16, fd00::/8',
      ['10.1.0.0', '10.1.255.255', '::ffff:10.1.2.3', 'fd00::1', 'fdff::1'],
      ['10.2.0.0', '10.0.255.255', 'fc00::1', '8.8.8.8', '127.0.0.1'],
    ],
    ['169.254.169.254', ['169.254.169.254'], ['169.254.169.253', '127.0.0.1']],
    ['[::1], 0.0.0.0/0', ['::1', '1.2.3.4', '127.0.0.1'], ['::2', 'fd00::1']],
    [' External , LOOPBACK ,', ['8.8.8.8', '127.0.0.1'], ['10.0.0.1']],
    ['*.example.com', [], ['8.8.8.8', '127.0.0.1']],
  ])('%j allows %j and refuses %j', (spec, allowed, refused) => {
    const list = HostAllowList.parse(spec);
    for (const ip of allowed) expect(list.allowsAddress(ip), ip).toBe(true);
    for (const ip of refused) expect(list.allowsAddress(ip), ip).toBe(false);
  });

  it.each([
    ['', /lists no host/],
    [' , ,', /lists no host/],
    ['extrnal', /did you mean "external"/],
    ['privte', /did you mean "private"/],
    ['loopbak', /did you mean "loopback"/],
    ['10.1.2.3/16', /bits set after the \/16 prefix/],
    ['10.0.0.0/33', /prefix length must be 0–32/],
    ['fd00::/129', /prefix length must be 0–128/],
    ['10.0.0.0/-1', /prefix length/],
    ['10.0.0.0/8/8', /not an IP address or CIDR range/],
    ['10.0.0/8', /not an IP address or CIDR range/],
    ['fe80::1%eth0', /not an IP address or CIDR range/],
    ['::ffff:10.0.0.0/104', /IPv4-mapped/],
    ['127.1', /looks like an IP address/],
    ['0x7f000001', /looks like an IP address/],
    ['2130706433', /looks like an IP address/],
    ['a b.example.com', /not a keyword .* host name pattern/],
    ['hooks.example.com:8080', /not a keyword/],
    ['https://hooks.example.com', /not a keyword|not an IP/],
    ['bücher.example', /ASCII/],
    ['a..example.com', /not a keyword/],
    [`${'a'.repeat(254)}`, /not a keyword/],
  ])('refuses %j (%s)', (spec, message) => {
    expect(() => HostAllowList.parse(spec)).toThrow(message);
  });

  it('loadConfig: default external, a bad entry is a ConfigError naming the variable', () => {
    expect(loadConfig({}).webhook.allowedHosts.allowsAddress('127.0.0.1')).toBe(false);
    expect(loadConfig({}).webhook.allowedHosts.allowsAddress('8.8.8.8')).toBe(true);
    expect(loadConfig({ ASKGATE_WEBHOOK_ALLOWED_HOSTS: '  ' }).webhook.allowedHosts.allowsAddress('8.8.8.8')).toBe(
      true,
    );
    expect(
      loadConfig({ ASKGATE_WEBHOOK_ALLOWED_HOSTS: 'loopback' }).webhook.allowedHosts.allowsAddress('127.0.0.1'),
    ).toBe(true);
    expect(() => loadConfig({ ASKGATE_WEBHOOK_ALLOWED_HOSTS: 'external,10.0.0.1/8' })).toThrow(ConfigError);
    expect(() => loadConfig({ ASKGATE_WEBHOOK_ALLOWED_HOSTS: 'external,10.0.0.1/8' })).toThrow(
      /ASKGATE_WEBHOOK_ALLOWED_HOSTS: "10.0.0.1\/8" has bits set/,
    );
  });
});

describe('host name patterns', () => {
  it.each([
    ['*.example.com', 'a.example.com', true],
    ['*.example.com', 'a.b.example.com', true],
    ['*.example.com', 'A.Example.COM.', true],
    ['*.example.com', 'example.com', false],
    ['*.example.com', 'evilexample.com', false],
    ['*.example.com', 'a.example.com.evil.net', false],
    ['*.example.com', 'a-example.com', false],
    ['hooks-*.example.com', 'hooks-eu1.example.com', true],
    ['hooks-*.example.com', 'api.example.com', false],
    ['receiver', 'receiver', true],
    ['receiver', 'receiver.evil.net', false],
    ['*.example.com', '127.0.0.1', false],
    ['*', 'anything.at.all', true],
    ['external', 'example.com', false],
  ])('%j matches %j: %s', (spec, host, expected) => {
    expect(HostAllowList.parse(spec).matchesName(host)).toBe(expected);
  });
});

describe('refusal at creation: literal addresses in every spelling the URL parser normalises', () => {
  const refusedByDefault = [
    'http://127.0.0.1/',
    'http://127.1/',
    'http://0x7f000001/',
    'http://0x7F.1/',
    'http://2130706433/',
    'http://0177.0.0.1/',
    'http://017700000001/',
    'http://127.0.0.1:6379/',
    'http://%31%32%37.0.0.1/',
    'http://127\u30020\u30020\u30021/',
    'http://localhost/',
    'http://LOCALHOST./',
    'http://api.localhost/',
    'http://[::1]/',
    'http://[0:0:0:0:0:0:0:1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:7f00:1]/',
    'http://0.0.0.0/',
    'http://0/',
    'http://[::]/',
    'http://169.254.169.254/latest/meta-data/',
    'http://[fd00:ec2::254]/',
    'http://10.0.0.1/',
    'http://172.16.0.1/',
    'http://192.168.1.1/',
    'http://100.64.0.1/',
    'http://[fc00::1]/',
    'http://[fe80::1]/',
    'http://[64:ff9b::7f00:1]/',
    'http://[2002:7f00:1::1]/',
    'http://198.18.0.1/',
    'http://224.0.0.1/',
    'http://255.255.255.255/',
    'https://127.0.0.1:8443/',
    'http://[::127.0.0.1]/',
  ];

  it.each(refusedByDefault)('external refuses %s, naming the setting', (url) => {
    expect(EXTERNAL_ONLY.refusal(new URL(url))).toMatch(/ASKGATE_WEBHOOK_ALLOWED_HOSTS does not allow/);
  });

  it('says which setting would allow it', () => {
    expect(EXTERNAL_ONLY.refusal(new URL('http://0x7f000001/'))).toBe(
      '127.0.0.1 is a loopback address, which ASKGATE_WEBHOOK_ALLOWED_HOSTS does not allow (add "loopback" to allow loopback addresses)',
    );
    expect(EXTERNAL_ONLY.refusal(new URL('http://10.0.0.1/'))).toMatch(/a private address.*add "private"/);
    expect(EXTERNAL_ONLY.refusal(new URL('http://169.254.169.254/'))).toMatch(
      /link-local address \(such as cloud metadata\).*only its CIDR range or "\*"/,
    );
    expect(EXTERNAL_ONLY.refusal(new URL('http://localhost/'))).toMatch(
      /^localhost is a loopback name.*add "loopback"/,
    );
    expect(HostAllowList.parse('private').refusal(new URL('http://8.8.8.8/'))).toMatch(
      /a public address.*add "external"/,
    );
  });

  it.each([
    'https://hooks.example.com/x',
    'http://8.8.8.8/',
    'http://[2606:4700::1111]/',
    'http://127.0.0.1.nip.io/',
    'http://[::ffff:8.8.8.8]/',
  ])('external does not refuse %s here (names are checked on their resolved addresses at connect time)', (url) =>
    expect(EXTERNAL_ONLY.refusal(new URL(url))).toBeUndefined(),
  );

  it('other lists: loopback, CIDR, host patterns, *', () => {
    const loopback = HostAllowList.parse('loopback');
    for (const url of ['http://127.1/', 'http://localhost:8080/', 'http://[::1]/', 'http://[::ffff:127.0.0.1]/'])
      expect(loopback.refusal(new URL(url)), url).toBeUndefined();
    for (const url of ['http://10.0.0.1/', 'http://169.254.169.254/', 'http://0.0.0.0/', 'http://8.8.8.8/'])
      expect(loopback.refusal(new URL(url)), url).toBeDefined();
    const metadata = HostAllowList.parse('169.254.169.254/32');
    expect(metadata.refusal(new URL('http://169.254.169.254/'))).toBeUndefined();
    expect(metadata.refusal(new URL('http://169.254.169.253/'))).toBeDefined();
    expect(metadata.refusal(new URL('http://localhost/'))).toBeDefined();
    expect(HostAllowList.parse('127.0.0.0/8').refusal(new URL('http://localhost/'))).toBeUndefined();
    expect(HostAllowList.parse('*.localhost').refusal(new URL('http://api.localhost/'))).toBeUndefined();
    expect(HostAllowList.parse('*').refusal(new URL('http://0.0.0.0/'))).toBeUndefined();
  });
});

describe('allowedAddresses (what the connection lookup hands the socket)', () => {
  const resolved = [
    { address: '93.184.216.34', family: 4 },
    { address: '127.0.0.1', family: 4 },
    { address: '2606:2800:220:1::1', family: 6 },
    { address: '::ffff:169.254.169.254', family: 6 },
    { address: 'fe80::1%eth0', family: 6 },
  ];

  it('keeps only allowed addresses of a name, so a mixed answer never connects to the refused ones', () => {
    expect(allowedAddresses('mixed.example', resolved, EXTERNAL_ONLY).map((a) => a.address)).toEqual([
      '93.184.216.34',
      '2606:2800:220:1::1',
    ]);
    expect(allowedAddresses('mixed.example', resolved, EXTERNAL_ONLY, 4).map((a) => a.address)).toEqual([
      '93.184.216.34',
    ]);
    expect(allowedAddresses('mixed.example', resolved, HostAllowList.parse('loopback')).map((a) => a.address)).toEqual([
      '127.0.0.1',
    ]);
    expect(allowedAddresses('rebind.example', [{ address: '127.0.0.1', family: 4 }], EXTERNAL_ONLY)).toEqual([]);
  });

  it('a name matching a host pattern may use any address it resolves to', () => {
    expect(allowedAddresses('hooks.corp.example', resolved, HostAllowList.parse('*.corp.example'))).toHaveLength(
      resolved.length,
    );
    expect(allowedAddresses('hooks.other.example', resolved, HostAllowList.parse('*.corp.example'))).toEqual([]);
  });
});
