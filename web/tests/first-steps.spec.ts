import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from '@playwright/test';
import { documentScreenshot, expect, expectAccessible, signedIn, test } from './support/fixtures';
import { ApiSession, callWithKey, publishIndexedArticle } from './support/http';
import { ownOrganization } from './support/own-organization';

/**
 * Issue 31 item 5: an empty organization's first steps tick themselves off
 * from what the API says exists; the agent form chooses its model from what
 * the service can serve (and the service refuses one it cannot); the
 * knowledge base is offered to a new agent, included by default.
 */

// The website the first source reads is a page on loopback (D35 allows it on one machine only).
test.use({ serviceEnv: { SVC_ALLOW_PRIVATE_URLS: 'true' } });

const HELP_PAGE = `<!doctype html><html lang="en"><head><title>Lamp help</title></head><body>
<main><h1>Lamp help</h1>
<p>The lamp's warranty lasts two years from the day of purchase, parts and labour included.</p>
<p>Return shipping is free within 30 days: print the label from your order page.</p>
</main></body></html>`;

let site: Server;
let siteUrl = '';

test.beforeAll(async () => {
  site = createServer((_request, response) => {
    response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    response.end(HELP_PAGE);
  });
  await new Promise<void>((done) => site.listen(0, '127.0.0.1', done));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;
});
test.afterAll(() => new Promise<void>((done) => site.close(() => done())));

/** Waits until a data source holds chunks (the runtime's sync worker runs every 200 ms). */
async function indexed(admin: ApiSession, sourceId: string): Promise<void> {
  for (const started = Date.now(); Date.now() - started < 30_000; ) {
    const source = await admin.call<{ chunks_indexed: number }>(
      'GET',
      `/api/v1/data-sources/${sourceId}`,
    );
    if (source.chunks_indexed > 0) return;
    await new Promise((done) => setTimeout(done, 200));
  }
  throw new Error(`data source ${sourceId} was not indexed within 30 s`);
}

/** The first-steps list's item for a step, by the words it starts with. */
const step = (page: Page, title: RegExp) =>
  page
    .getByRole('region', { name: 'First steps' })
    .getByRole('listitem')
    .filter({ hasText: title });

async function askInPlayground(page: Page, question: string) {
  await page.getByRole('textbox', { name: 'Question' }).fill(question);
  await page.getByRole('button', { name: 'Ask' }).click();
  const turn = page.getByRole('list', { name: 'Conversation' }).getByRole('listitem').first();
  await expect(turn.getByText('Latency')).toBeVisible({ timeout: 20_000 });
  return turn;
}

test.describe('First steps', () => {
  test('an empty organization’s first steps tick themselves off, and go once dismissed', async ({
    page,
    service,
    makeAxeBuilder,
  }) => {
    const org = await ownOrganization(service, 'first-steps');
    const admin = await ApiSession.signIn(service.url, org.admin.email, org.admin.password);
    await signedIn(page, org.admin.email, org.admin.password, '/agents');

    const checklist = page.getByRole('region', { name: 'First steps' });
    await expect(checklist).toContainText('0 of 5 done');
    await expect(step(page, /^Add a data source/)).toContainText('To do');
    // Every empty list says what to do next, with a way to do it.
    await expect(page.getByRole('link', { name: 'Make the first agent' })).toBeVisible();
    await expectAccessible(makeAxeBuilder);
    await documentScreenshot(page, 'first-steps-light');

    // The step's button leads where the step is done.
    await step(page, /^Add a data source/)
      .getByRole('link', { name: 'Add a data source' })
      .click();
    await expect(page).toHaveURL(/\/data-sources\/new$/);
    const source = await admin.call<{ id: string }>('POST', '/api/v1/data-sources', {
      type: 'website',
      name: 'Lamp help',
      config: { url: siteUrl, max_pages: 1 },
    });
    // A sync already started for the new source (409) is as good as this one.
    await admin.call('POST', `/api/v1/data-sources/${source.id}/sync`).catch((error: Error) => {
      if (!/: 409 /.test(error.message)) throw error;
    });
    await indexed(admin, source.id);
    await page.goto('/agents');
    await expect(step(page, /^Add a data source/)).toContainText('Done');
    await expect(step(page, /^Let it sync/)).toContainText('Done');
    await expect(checklist).toContainText('2 of 5 done');

    // Made in the form, the agent takes the knowledge base unless it is unticked.
    await step(page, /^Make an agent/)
      .getByRole('link', { name: 'Make an agent' })
      .click();
    await page.getByRole('textbox', { name: 'Name' }).fill('Lamp helper');
    await page.getByRole('checkbox', { name: /Lamp help/ }).check();
    await expect(
      page.getByRole('checkbox', { name: /Answer from the knowledge base/ }),
    ).toBeChecked();
    await page.getByRole('button', { name: 'Create agent' }).click();
    await expect(page.getByRole('heading', { name: 'Lamp helper', level: 1 })).toBeVisible();
    const turn = await askInPlayground(page, 'How long is the warranty?');
    await expect(turn).toContainText('two years');

    await page.goto('/agents');
    await expect(step(page, /^Make an agent/)).toContainText('Done');
    await expect(step(page, /^Ask it a question/)).toContainText('Done');
    await expect(step(page, /^Invite a colleague/)).toContainText('To do');
    await expect(page.getByRole('button', { name: 'Dismiss first steps' })).toHaveCount(0);

    await admin.invite(`colleague-${Date.now()}@console.test`, 'Cole League', 'readonly');
    await page.reload();
    await expect(checklist).toContainText('Everything is set up');
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.setViewportSize({ width: 390, height: 844 });
    await expectAccessible(makeAxeBuilder);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
      390,
    );
    await documentScreenshot(page, 'first-steps-dark-phone');
    await page.getByRole('button', { name: 'Dismiss first steps' }).click();
    await expect(checklist).toHaveCount(0);
    await page.reload();
    await expect(page.getByRole('rowheader', { name: 'Lamp helper' })).toBeVisible();
    await expect(checklist).toHaveCount(0);
  });

  test('the model picker offers what the service can serve, and the service refuses a model it cannot', async ({
    page,
    service,
    makeAxeBuilder,
  }) => {
    const org = await ownOrganization(service, 'model-picker');
    await signedIn(page, org.admin.email, org.admin.password, '/agents/new');

    // No provider and no model key: the offline model is the one choice, said in words.
    const model = page.getByRole('combobox', { name: 'Model', exact: true });
    await expect(model.getByRole('option')).toHaveText([/^offline-extractive/]);
    await expect(page.getByRole('combobox', { name: 'Model key' })).toHaveValue('');
    await expect(page.getByText('This service has no model provider')).toBeVisible();
    await expectAccessible(makeAxeBuilder);

    // A list read before the service lost its provider still offers a hosted model;
    // the service checks the model again on save and refuses it, naming the field.
    await page.route('**/api/v1/models', (route) =>
      route.fulfill({
        status: 200,
        contentType: 'application/json',
        body: JSON.stringify({
          choices: [
            {
              model_key_id: null,
              label: 'This service (OpenAI)',
              provider: 'openai',
              models: ['offline-extractive', 'gpt-4o-mini'],
              other_models: true,
            },
          ],
        }),
      }),
    );
    await page.reload();
    await page.getByRole('textbox', { name: 'Name' }).fill('Hosted helper');
    await model.selectOption('gpt-4o-mini');
    await page.getByRole('button', { name: 'Create agent' }).click();
    await expect(page.getByRole('alert')).toContainText(
      'The model "gpt-4o-mini" cannot answer here',
    );
    await expect(page.getByText(/^Model: this service has no model provider/)).toBeVisible();
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.setViewportSize({ width: 390, height: 844 });
    await expectAccessible(makeAxeBuilder);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
      390,
    );
    await documentScreenshot(page, 'agent-model-refused-dark');

    // Nothing was saved; the model the service serves is.
    const admin = await ApiSession.signIn(service.url, org.admin.email, org.admin.password);
    const agents = await admin.call<{ total: number }>('GET', '/api/v1/agents');
    expect(agents.total).toBe(0);
    await page.unrouteAll();
    await page.reload();
    await page.getByRole('textbox', { name: 'Name' }).fill('Offline helper');
    await page.getByRole('button', { name: 'Create agent' }).click();
    await expect(page.getByRole('heading', { name: 'Offline helper', level: 1 })).toBeVisible();
  });

  test('the knowledge base is offered to a new agent, which answers a new article without being edited', async ({
    page,
    service,
    makeAxeBuilder,
  }) => {
    const org = await ownOrganization(service, 'knowledge-base');
    const admin = await ApiSession.signIn(service.url, org.admin.email, org.admin.password);
    const key = await admin.createKey('articles');
    await signedIn(page, org.admin.email, org.admin.password, '/agents/new');

    const kb = page.getByRole('checkbox', { name: /Answer from the knowledge base/ });
    await expect(kb).toBeChecked();
    await expect(
      page.getByText(/^Included: the agent answers from the published articles/),
    ).toBeVisible();
    await kb.uncheck();
    await expect(page.getByText(/^Not included:/)).toBeVisible();
    await kb.check();
    await page.emulateMedia({ colorScheme: 'dark' });
    await expectAccessible(makeAxeBuilder);
    await page.emulateMedia({ colorScheme: 'light' });
    await page.getByRole('textbox', { name: 'Name' }).fill('Policy helper');
    await page.getByRole('button', { name: 'Create agent' }).click();
    await expect(page.getByRole('heading', { name: 'Policy helper', level: 1 })).toBeVisible();
    const agentId = /\/agents\/(agt_\w+)/.exec(page.url())?.[1] ?? '';

    // Published after the agent was made: answered without touching the agent.
    await publishIndexedArticle(service.url, key, {
      title: 'Office hours',
      content: 'The support desk is open from 8 to 17 on weekdays, closed on public holidays.',
    });
    const turn = await askInPlayground(page, 'When is the support desk open?');
    await expect(turn).toContainText('8 to 17');
    const agent = await callWithKey<{
      data_source_ids: string[];
      updated_at: string;
      created_at: string;
    }>(service.url, key, 'GET', `/api/v1/agents/${agentId}`);
    expect(agent.updated_at).toBe(agent.created_at);
    expect(agent.data_source_ids).toHaveLength(1);
  });
});
