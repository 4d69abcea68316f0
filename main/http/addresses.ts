import { networkInterfaces } from 'node:os';

/** This computer's IPv4 addresses on its networks (not the loopback): where a phone can reach it. */
export function lanAddresses(): string[] {
  const addresses: string[] = [];
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) addresses.push(a.address);
  }
  return addresses;
}

/**
 * How often a running listener reads its addresses again, to follow a new Wi-Fi, a DHCP lease or
 * a VPN: its certificate is issued again and its `.local` name announced with the new addresses.
 */
export const ADDRESS_CHECK_MS = 10_000;

/** Every base URL of the API a device could use to reach a listener bound to host. */
export function reachableAddresses(host: string, port: number, scheme: 'http' | 'https' = 'http'): string[] {
  const hosts = host === '0.0.0.0' ? ['127.0.0.1', ...lanAddresses()] : [host];
  return hosts.map((a) => `${scheme}://${a.includes(':') ? `[${a}]` : a}:${port}/1/`);
}
