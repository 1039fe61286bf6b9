import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

export interface WebhookUrlPolicy {
  /** Hosts (names or IPs) allowed even when they resolve to a private address, e.g. for local development. */
  allowHosts: string[];
  /** Accept `http:` webhook URLs (only `https:` otherwise). */
  allowHttp: boolean;
}

const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  blocked.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  blocked.addSubnet(net, prefix, 'ipv6');
}

function isBlockedAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    return mapped ? blocked.check(mapped[1]!, 'ipv4') : blocked.check(address, 'ipv6');
  }
  return true;
}

/**
 * Why a webhook URL is refused, or undefined when it may be called. URLs whose host
 * resolves to a loopback, link-local, private or otherwise internal address are refused
 * (the server must not be a way into its own network), unless the host is allowlisted.
 */
export async function refuseWebhookUrl(raw: string, policy: WebhookUrlPolicy): Promise<string | undefined> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `"${raw}" is not a URL`;
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && policy.allowHttp)) {
    return `webhook URLs must use https${policy.allowHttp ? ' or http' : ''} (got ${url.protocol})`;
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (policy.allowHosts.includes(host)) return undefined;
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : (await lookup(host, { all: true })).map((a) => a.address);
  } catch {
    return `cannot resolve the webhook host ${host}`;
  }
  const internal = addresses.find(isBlockedAddress);
  return internal
    ? `the webhook host ${host} resolves to a private or local address (${internal}); refused`
    : undefined;
}
