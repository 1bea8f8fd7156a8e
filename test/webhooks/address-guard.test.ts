import { once } from 'node:events';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkWebhookUrl, guardedLookup, isPublicAddress } from '../../server/infra/outbound/address-guard.ts';
import { testCertificate } from '../support/tls.ts';

describe('isPublicAddress', () => {
  const table: Array<[string, boolean, string]> = [
    ['93.184.215.14', true, 'public IPv4'],
    ['8.8.8.8', true, 'public IPv4'],
    ['2606:4700:4700::1111', true, 'public IPv6'],
    ['::ffff:8.8.8.8', true, 'mapped public IPv4'],
    ['2002:808:808::1', true, '6to4 of a public IPv4'],
    ['64:ff9b::808:808', true, 'NAT64 of a public IPv4'],
    ['2001:0:4136:e378:8000:63bf:f7f7:f7f7', true, 'Teredo of 8.8.8.8'],
    ['10.0.0.1', false, 'private 10/8'],
    ['172.16.0.1', false, 'private 172.16/12'],
    ['172.31.255.255', false, 'private 172.16/12, last'],
    ['192.168.1.1', false, 'private 192.168/16'],
    ['127.0.0.1', false, 'loopback'],
    ['127.255.255.254', false, 'loopback /8'],
    ['169.254.169.254', false, 'cloud metadata (link-local)'],
    ['169.254.0.1', false, 'link-local'],
    ['100.64.0.1', false, 'CGNAT'],
    ['100.127.255.255', false, 'CGNAT, last'],
    ['224.0.0.1', false, 'multicast'],
    ['0.0.0.0', false, 'unspecified (reaches localhost on Linux)'],
    ['0.1.2.3', false, '0/8'],
    ['255.255.255.255', false, 'broadcast'],
    ['240.0.0.1', false, 'reserved'],
    ['192.0.2.1', false, 'TEST-NET-1'],
    ['198.18.0.1', false, 'benchmarking'],
    ['::1', false, 'IPv6 loopback'],
    ['::', false, 'IPv6 unspecified'],
    ['fe80::1', false, 'IPv6 link-local'],
    ['febf:ffff::1', false, 'IPv6 link-local, last /10'],
    ['fc00::1', false, 'unique-local'],
    ['fd12:3456::1', false, 'unique-local fd'],
    ['fd00:ec2::254', false, 'AWS IPv6 metadata'],
    ['ff02::1', false, 'IPv6 multicast'],
    ['2001:db8::1', false, 'documentation'],
    ['::ffff:127.0.0.1', false, 'mapped loopback (dotted)'],
    ['::ffff:7f00:1', false, 'mapped loopback (hex)'],
    ['::ffff:169.254.169.254', false, 'mapped metadata'],
    ['::ffff:10.0.0.1', false, 'mapped private'],
    ['::7f00:1', false, 'IPv4-compatible loopback (deprecated ::/96)'],
    ['2002:7f00:1::', false, '6to4 of loopback'],
    ['2002:a9fe:a9fe::', false, '6to4 of the metadata address'],
    ['64:ff9b::7f00:1', false, 'NAT64 of loopback'],
    ['64:ff9b::a00:1', false, 'NAT64 of 10.0.0.1'],
    ['64:ff9b:1::808:808', false, 'local-use NAT64 prefix'],
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', false, 'Teredo of 127.0.0.1'],
    ['not-an-ip', false, 'not an address'],
    ['0x7f.1', false, 'non-canonical IPv4 text'],
    ['2130706433', false, 'decimal IPv4 text'],
  ];
  it.each(table)('%s → %s (%s)', (ip, expected) => {
    expect(isPublicAddress(ip)).toBe(expected);
  });
});

describe('checkWebhookUrl', () => {
  const strict = { allowPrivate: false, lookup: async () => ['93.184.215.14'] };

  it('accepts https to a public host (resolved by the given lookup)', async () => {
    const result = await checkWebhookUrl('https://hooks.example.com/intake?x=1', strict);
    expect(result.ok).toBe(true);
    expect(result.ok && result.url.hostname).toBe('hooks.example.com');
    expect((await checkWebhookUrl('https://93.184.215.14/', strict)).ok).toBe(true);
  });

  it.each([
    ['http://hooks.example.com/', 'must use https'],
    ['ftp://hooks.example.com/', 'must use https'],
    ['not a url', 'is not a valid URL'],
    ['https://user:pass@hooks.example.com/', 'must not carry a user name or password'],
    ['https://user@hooks.example.com/', 'must not carry a user name or password'],
    ['https://:pass@hooks.example.com/', 'must not carry a user name or password'],
    [`https://hooks.example.com/${'a'.repeat(2030)}`, 'is longer than 2,048 characters'],
  ])('refuses %s', async (url, reason) => {
    expect(await checkWebhookUrl(url, strict)).toEqual({ ok: false, reason });
    // These checks hold even when private addresses are allowed.
    expect(await checkWebhookUrl(url, { allowPrivate: true })).toEqual({ ok: false, reason });
  });

  it.each([
    ['https://127.0.0.1/'],
    ['https://2130706433/'],
    ['https://0177.0.0.1/'],
    ['https://0x7f.1/'],
    ['https://0x7f000001/'],
    ['https://127.1/'],
    ['https://169.254.169.254/latest/meta-data/'],
    ['https://[::1]/'],
    ['https://[::ffff:127.0.0.1]/'],
    ['https://[::ffff:7f00:1]/'],
    ['https://[fd00:ec2::254]/'],
    ['https://[64:ff9b::a9fe:a9fe]/'],
    ['https://0.0.0.0:8443/'],
  ])('refuses the IP literal %s without resolving', async (url) => {
    const lookup = async (host: string): Promise<string[]> => {
      throw new Error(`looked up ${host}`);
    };
    expect(await checkWebhookUrl(url, { allowPrivate: false, lookup })).toEqual({
      ok: false,
      reason: 'points to a private or reserved address',
    });
  });

  it('refuses localhost through the real resolver', async () => {
    expect(await checkWebhookUrl('https://localhost:8443/hook', { allowPrivate: false })).toEqual({
      ok: false,
      reason: 'resolves to a private or reserved address',
    });
  });

  it('refuses a name when any of its addresses is not public', async () => {
    const mixed = { allowPrivate: false, lookup: async () => ['93.184.215.14', '10.0.0.5'] };
    expect(await checkWebhookUrl('https://rebind.example.com/', mixed)).toEqual({
      ok: false,
      reason: 'resolves to a private or reserved address',
    });
    const v6 = { allowPrivate: false, lookup: async () => ['2606:4700:4700::1111', '::ffff:169.254.169.254'] };
    expect((await checkWebhookUrl('https://rebind.example.com/', v6)).ok).toBe(false);
  });

  it('refuses a name that does not resolve', async () => {
    const nothing = { allowPrivate: false, lookup: async () => [] };
    expect(await checkWebhookUrl('https://gone.example.com/', nothing)).toEqual({
      ok: false,
      reason: 'has a host name that does not resolve',
    });
    const failing = {
      allowPrivate: false,
      lookup: async () => {
        throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
      },
    };
    expect(await checkWebhookUrl('https://gone.example.com/', failing)).toEqual({
      ok: false,
      reason: 'has a host name that does not resolve',
    });
  });

  it('with allowPrivate, skips address checks and DNS entirely', async () => {
    const lookup = async (host: string): Promise<string[]> => {
      throw new Error(`looked up ${host}`);
    };
    for (const url of [
      'https://localhost:8443/',
      'https://127.0.0.1/',
      'https://[::1]/',
      'https://unresolvable.example/',
    ]) {
      expect((await checkWebhookUrl(url, { allowPrivate: true, lookup })).ok, url).toBe(true);
    }
  });
});

describe('guardedLookup', () => {
  const lookupOnce = (allowPrivate: boolean, host: string, all: boolean) =>
    new Promise<{ err: NodeJS.ErrnoException | null; address: unknown; family?: number }>((resolve) => {
      guardedLookup(allowPrivate)(host, { all }, (err, address, family) => resolve({ err, address, family }));
    });

  it('fails with EBLOCKEDADDRESS for loopback names and IP literals, with all true or false', async () => {
    for (const host of ['localhost', '127.0.0.1', '::1', '169.254.169.254']) {
      for (const all of [true, false]) {
        const { err } = await lookupOnce(false, host, all);
        expect(err?.code, `${host} all=${all}`).toBe('EBLOCKEDADDRESS');
      }
    }
  });

  it('resolves as dns.lookup does when private addresses are allowed', async () => {
    expect(await lookupOnce(true, '127.0.0.1', false)).toEqual({ err: null, address: '127.0.0.1', family: 4 });
    const all = await lookupOnce(true, '127.0.0.1', true);
    expect(all.err).toBeNull();
    expect(all.address).toEqual([{ address: '127.0.0.1', family: 4 }]);
    const local = await lookupOnce(true, 'localhost', false);
    expect(local.err).toBeNull();
    expect(['127.0.0.1', '::1']).toContain(local.address);
  });

  describe('in an undici Agent against a real local HTTPS server', () => {
    const { key, cert } = testCertificate();
    const servers: https.Server[] = [];
    let port = 0;

    beforeAll(async () => {
      const first = https.createServer({ key, cert }, (_req, res) => res.end('reached'));
      first.listen(0, '127.0.0.1');
      await once(first, 'listening');
      servers.push(first);
      port = (first.address() as AddressInfo).port;
      // Where localhost also resolves to ::1, answer there too (best effort: the machine may lack IPv6).
      const second = https.createServer({ key, cert }, (_req, res) => res.end('reached'));
      await new Promise<void>((resolve) => {
        second.once('error', () => resolve());
        second.listen(port, '::1', () => {
          servers.push(second);
          resolve();
        });
      });
    });
    afterAll(async () => {
      for (const s of servers) await new Promise((resolve) => s.close(resolve));
    });

    const errorCodes = (err: unknown) => {
      const codes: unknown[] = [];
      for (let e = err; e; e = (e as { cause?: unknown }).cause) codes.push((e as { code?: unknown }).code);
      return codes;
    };

    it('blocks the connection before it opens (EBLOCKEDADDRESS in the cause chain)', async () => {
      let connections = 0;
      for (const s of servers) s.on('secureConnection', () => (connections += 1));
      const agent = new Agent({ connect: { lookup: guardedLookup(false), ca: cert } });
      try {
        const err = await request(`https://localhost:${port}/`, { dispatcher: agent, method: 'POST', body: '{}' }).then(
          () => null,
          (e: unknown) => e,
        );
        expect(err).not.toBeNull();
        expect(errorCodes(err)).toContain('EBLOCKEDADDRESS');
        expect(connections).toBe(0);
      } finally {
        await agent.close();
      }
    });

    it('connects when private addresses are allowed', async () => {
      const agent = new Agent({ connect: { lookup: guardedLookup(true), ca: cert } });
      try {
        const res = await request(`https://localhost:${port}/`, { dispatcher: agent, method: 'POST', body: '{}' });
        expect(res.statusCode).toBe(200);
        expect(await res.body.text()).toBe('reached');
      } finally {
        await agent.close();
      }
    });
  });
});
