import type { LookupAddress, LookupAllOptions } from 'node:dns';
import { lookup as dnsLookup } from 'node:dns';
import ipaddr from 'ipaddr.js';

/**
 * Whether an endpoint may be reached at this address: a public unicast address only. Private,
 * loopback, link-local (the cloud metadata services at 169.254.169.254 and fd00:ec2::254),
 * carrier-grade NAT, unique-local, multicast and reserved ranges are refused, so that an admin
 * cannot point the org's signed events at the server's own network. An IPv4-mapped IPv6
 * address is judged as the IPv4 address it carries.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress())
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  return parsed.range() === 'unicast';
}

/** An IP literal as the URL spells its host (`[::1]` for IPv6), or null for a name. */
export function ipLiteralOf(hostname: string): string | null {
  const bare = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  return ipaddr.isValid(bare) ? bare : null;
}

export type Resolver = (
  hostname: string,
  options: LookupAllOptions,
  callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for `http.request` that resolves the name and refuses it when any address it
 * resolves to is not public. The connection then goes to the address checked here, so a name
 * that resolves to a public address at save time and a private one later (DNS rebinding) is
 * refused at the moment of sending.
 */
export function guardedLookup(resolve: Resolver = dnsLookup as Resolver) {
  return (hostname: string, options: { all?: boolean }, callback: LookupCallback) => {
    resolve(hostname, { all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      const refused = addresses.find((a) => !isPublicAddress(a.address));
      if (refused || addresses.length === 0) {
        const error: NodeJS.ErrnoException = new Error(
          `${hostname} resolves to ${refused?.address ?? 'no address'}, which is not a public address`,
        );
        error.code = 'EADDRNOTPUBLIC';
        return callback(error, []);
      }
      if (options.all) return callback(null, addresses);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}
