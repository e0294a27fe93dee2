import { classifyAddress, isPublicUnicast } from '../../../layers/core/domain/public-address';

describe('Domain: public address classification (D35)', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.1.1', 'linkLocal'],
    ['169.254.169.254', 'cloudMetadata'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['100.127.255.255', 'carrierGradeNat'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['192.0.0.8', 'reserved'],
    ['192.0.2.1', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['198.51.100.7', 'reserved'],
    ['203.0.113.9', 'reserved'],
    ['240.0.0.1', 'reserved'],
  ])('refuses the IPv4 address %s (%s)', (address, range) => {
    expect(classifyAddress(address)).toEqual({ public: false, range });
    expect(isPublicUnicast(address)).toBe(false);
  });

  it.each([
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['::', 'unspecified'],
    ['fc00::1', 'uniqueLocal'],
    ['fdff:ffff::1', 'uniqueLocal'],
    ['fd00:ec2::254', 'cloudMetadata'],
    ['fd00:ec2:0:0:0:0:0:254', 'cloudMetadata'],
    ['fe80::1', 'linkLocal'],
    ['febf::1', 'linkLocal'],
    ['fe80::1%eth0', 'scoped'],
    ['ff02::1', 'multicast'],
    ['::ffff:7f00:1', 'ipv4Mapped'],
    ['::ffff:127.0.0.1', 'ipv4Mapped'],
    ['::ffff:a9fe:a9fe', 'ipv4Mapped'],
    // Mapped forms are refused whatever they carry: the plain IPv4 address does the same job.
    ['::ffff:8.8.8.8', 'ipv4Mapped'],
    ['::7f00:1', 'ipv4Compatible'],
    ['::8.8.8.8', 'ipv4Compatible'],
    ['::ffff:0:7f00:1', 'rfc6145'],
    ['2002:a9fe:a9fe::1', '6to4:cloudMetadata'],
    ['2002:7f00:1::', '6to4:loopback'],
    ['2002:c0a8:101::1', '6to4:private'],
    ['64:ff9b::7f00:1', 'nat64:loopback'],
    ['64:ff9b::a9fe:a9fe', 'nat64:cloudMetadata'],
    ['64:ff9b:1::1', 'rfc6052'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'teredo'],
    ['2001:db8::1', 'reserved'],
    ['fec0::1', 'deprecatedSiteLocal'],
    ['100::1', 'discard'],
    ['4000::1', 'unallocated'],
  ])('refuses the IPv6 address %s (%s)', (address, range) => {
    expect(classifyAddress(address)).toEqual({ public: false, range });
    expect(isPublicUnicast(address)).toBe(false);
  });

  it.each([
    '127.1',
    '0x7f.1',
    '017700000001',
    '2130706433',
    '010.0.0.1',
    'localhost',
    'example.com',
    '',
    '1.2.3.4.5',
    '256.0.0.1',
    '[[::1]]',
    '::1::2',
  ])('refuses %j, which is not a canonical IP address', (address) => {
    expect(classifyAddress(address)).toEqual({ public: false, range: 'invalid' });
  });

  it.each([
    ['93.184.216.34', 'unicast'],
    ['8.8.8.8', 'unicast'],
    ['172.32.0.1', 'unicast'],
    ['100.128.0.1', 'unicast'],
    ['169.253.255.255', 'unicast'],
    ['2606:4700:4700::1111', 'unicast'],
    ['[2a00:1450:4001:80b::200e]', 'unicast'],
    ['2002:808:808::1', '6to4'],
    ['64:ff9b::808:808', 'nat64'],
  ])('accepts the public address %s', (address, range) => {
    expect(classifyAddress(address)).toEqual({ public: true, range });
    expect(isPublicUnicast(address)).toBe(true);
  });
});
