import { crawlerPolicy, type Resolver } from '../../../layers/core/adapters/net/outbound-policy';
import { crawl, loopbackSites, page } from './crawl-site';

/** The crawler's outbound-address guard: private addresses refused when SVC_ALLOW_PRIVATE_URLS is off. */
describe('Function: crawlWebsite (private addresses)', () => {
  const { startSite } = loopbackSites();

  describe('D35: private addresses when SVC_ALLOW_PRIVATE_URLS is off', () => {
    const publicPolicy = (resolve?: Resolver) =>
      crawlerPolicy({ allowPrivateAddresses: false, ...(resolve ? { resolve } : {}) });

    it('refuses a loopback start URL before any request reaches the server', async () => {
      const site = await startSite(() => ({ '/': page('Home', 'x') }));

      const results = await crawl(`${site.origin}/`, { policy: publicPolicy() });

      expect(results).toEqual([
        {
          status: 'skipped',
          url: `${site.origin}/`,
          reason: 'address-refused',
          detail: 'address 127.0.0.1 is not public (loopback)',
        },
      ]);
      expect(site.receiver.connections()).toBe(0);
    });

    it('refuses a name that resolves to loopback, and known spellings of it', async () => {
      const site = await startSite(() => ({ '/': page('Home', 'x') }));
      const toLoopback: Resolver = async () => ['127.0.0.1'];

      const named = await crawl(`http://site.test:${site.receiver.port}/`, {
        policy: publicPolicy(toLoopback),
      });
      const spelled = await crawl(`http://0x7f.1:${site.receiver.port}/`, {
        policy: publicPolicy(),
      });

      expect(named).toMatchObject([
        {
          status: 'skipped',
          reason: 'address-refused',
          detail: 'host site.test resolves to 127.0.0.1, which is not public (loopback)',
        },
      ]);
      expect(spelled).toMatchObject([{ status: 'skipped', reason: 'address-refused' }]);
      expect(site.receiver.connections()).toBe(0);
    });

    it('checks the address again when connecting (DNS rebinding)', async () => {
      // Prepare: public when the URL is checked, loopback when the socket connects.
      const site = await startSite(() => ({ '/': page('Home', 'x') }));
      let lookups = 0;
      const rebinding: Resolver = async () => {
        lookups += 1;
        return lookups === 1 ? ['93.184.215.14'] : ['127.0.0.1'];
      };

      // Act
      const results = await crawl(`http://rebind.test:${site.receiver.port}/`, {
        policy: publicPolicy(rebinding),
      });

      // Assess
      expect(results).toEqual([
        {
          status: 'skipped',
          url: `http://rebind.test:${site.receiver.port}/`,
          reason: 'address-refused',
          detail: 'address 127.0.0.1 is not public (loopback)',
        },
      ]);
      expect(site.receiver.connections()).toBe(0);
    });

    it('refuses schemes other than http and https, and credentials', async () => {
      expect(await crawl('ftp://example.com/', { policy: publicPolicy() })).toMatchObject([
        {
          status: 'skipped',
          reason: 'address-refused',
          detail: 'scheme ftp is not allowed (allowed: https, http)',
        },
      ]);
      expect(await crawl('https://user:pw@example.com/', { policy: publicPolicy() })).toMatchObject(
        [
          {
            status: 'skipped',
            reason: 'address-refused',
            detail: 'URLs with credentials are not allowed',
          },
        ],
      );
    });
  });
});
