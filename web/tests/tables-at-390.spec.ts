import { ADMIN, expect, expectAccessible, signedIn, test } from './support/fixtures';
import { ApiSession, callWithKey, invitedUser, publishIndexedArticle } from './support/http';

test.use({ serviceEnv: { SVC_ALLOW_PRIVATE_URLS: 'true' } });

/**
 * Issue 31 item 7: every table fits a 390 px phone. Each screen with a
 * table is opened with rows in it, long names included, and the page must
 * not scroll sideways: a table wider than the screen scrolls inside its
 * own labelled region instead.
 */
test.describe('Tables at 390 px', () => {
  const unique = Date.now().toString(36);
  const ids = { agent: '', article: '', webhook: '', runA: '', runB: '' };

  test.beforeAll(async ({ service }) => {
    test.setTimeout(90_000);
    const key = service.adminKey;
    const admin = await ApiSession.signIn(service.url, ADMIN.email, ADMIN.password);
    // First, so the agent made below is an event it delivers (and fails to: nothing listens there).
    const hook = await admin.call<{ id: string }>('POST', '/api/v1/webhooks', {
      url: `http://127.0.0.1:9/hooks/agent-events/${unique}`,
      events: ['agent.created'],
      description: 'Tells the help desk when an agent changes',
    });
    ids.webhook = hook.id;
    const kb = await publishIndexedArticle(service.url, key, {
      title: `Returning a lamp bought in a shop abroad ${unique}`,
      content: 'A lamp can be returned within thirty days for a full refund, with its receipt.',
    });
    const agent = await callWithKey<{ id: string }>(service.url, key, 'POST', '/api/v1/agents', {
      name: `Customer support assistant for returns and refunds ${unique}`,
      data_source_ids: [kb],
    });
    ids.agent = agent.id;
    await callWithKey(service.url, key, 'POST', '/api/v1/query', {
      agent_id: agent.id,
      query: 'Can I return a lamp I bought abroad, and how long do I have to do it?',
    });
    const articles = await callWithKey<{ articles: { id: string }[] }>(
      service.url,
      key,
      'GET',
      '/api/v1/kb?limit=1',
    );
    ids.article = articles.articles[0]?.id ?? '';
    await admin.call('POST', '/api/v1/data-sources', {
      type: 'file',
      name: `Product manuals and warranty documents ${unique}`,
    });
    await invitedUser(
      admin,
      service.url,
      'configure',
      `Maximiliana Wolfeschlegelsteinhausen ${unique}`,
    );
    await admin.call('POST', '/api/v1/groups', {
      name: `Regional customer support team leads ${unique}`,
      role: 'train',
    });
    await admin.createKey(`Billing system integration key ${unique}`);
    for (const name of ['Before', 'After']) {
      const run = await callWithKey<{ id: string }>(service.url, key, 'POST', '/api/v1/evals', {
        agent_id: agent.id,
        name: `${name} the returns policy rewrite ${unique}`,
        questions: [
          { question: 'How long do I have to return a lamp?', expected_answer: 'Thirty days.' },
        ],
      });
      if (name === 'Before') ids.runA = run.id;
      else ids.runB = run.id;
    }
  });

  const screens: { name: string; path: () => string }[] = [
    { name: 'Agents', path: () => '/agents' },
    { name: 'Data sources', path: () => '/data-sources' },
    { name: 'Knowledge base', path: () => '/kb' },
    { name: "an article's history", path: () => `/kb/${ids.article}/history` },
    { name: 'Interactions', path: () => '/interactions' },
    { name: 'Analytics', path: () => '/analytics' },
    { name: 'Evaluations', path: () => `/evaluations?agent_id=${ids.agent}` },
    {
      name: 'two runs compared',
      path: () => `/evaluations/compare?agent_id=${ids.agent}&a=${ids.runA}&b=${ids.runB}`,
    },
    { name: 'Users', path: () => '/settings/users' },
    { name: 'Groups', path: () => '/settings/groups' },
    { name: 'API keys', path: () => '/settings/api-keys' },
    { name: 'Webhooks', path: () => '/settings/webhooks' },
    { name: "a webhook's deliveries", path: () => `/settings/webhooks/${ids.webhook}` },
  ];

  test('no screen with a table scrolls the page sideways', async ({ page, makeAxeBuilder }) => {
    test.setTimeout(120_000);
    await page.setViewportSize({ width: 390, height: 844 });
    await signedIn(page, ADMIN.email, ADMIN.password);
    const overflowing: string[] = [];
    for (const screen of screens) {
      await page.goto(screen.path());
      await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
      // Wait for the list to arrive: a table row, or the screen's empty state.
      await page
        .locator('table tbody tr')
        .first()
        .waitFor({ timeout: 5_000 })
        .catch(() => undefined);
      const widths = await page.evaluate(() => {
        const client = document.documentElement.clientWidth;
        // The outermost element reaching past the screen's edge, to name in a failure.
        const past = [...document.querySelectorAll<HTMLElement>('body *')].find(
          (element) => element.getBoundingClientRect().right > client + 1,
        );
        return {
          scroll: document.documentElement.scrollWidth,
          client,
          tables: document.querySelectorAll('table').length,
          culprit: past ? `${past.tagName.toLowerCase()}.${past.className}` : '',
        };
      });
      if (widths.scroll > widths.client) {
        overflowing.push(
          `${screen.name}: ${widths.scroll - widths.client} px too wide (${widths.culprit})`,
        );
      }
      // A table wider than its region scrolls there, and the region is named and reachable by keyboard.
      const unnamed = await page.evaluate(
        () =>
          [...document.querySelectorAll<HTMLElement>('.table-scroll')]
            .filter((region) => region.scrollWidth > region.clientWidth)
            .filter(
              (region) =>
                region.getAttribute('role') !== 'region' ||
                (!region.getAttribute('aria-labelledby') && !region.getAttribute('aria-label')) ||
                region.tabIndex !== 0,
            ).length,
      );
      if (unnamed > 0) overflowing.push(`${screen.name}: ${unnamed} scrolling table(s) unnamed`);
      if (widths.tables === 0) overflowing.push(`${screen.name}: no table shown`);
    }
    expect(overflowing).toEqual([]);
    await page.goto('/settings/users');
    await expect(page.getByRole('table')).toBeVisible();
    await expectAccessible(makeAxeBuilder);
    await page.emulateMedia({ colorScheme: 'dark' });
    await expectAccessible(makeAxeBuilder);
  });
});
