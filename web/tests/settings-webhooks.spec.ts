import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from '@playwright/test';
import {
  ADMIN,
  documentScreenshot,
  expect,
  expectAccessible,
  signedIn,
  test,
} from './support/fixtures';
import { ApiSession, invitedUser } from './support/http';

// D35: the runtime may deliver to a receiver on loopback only when told so, as the
// webhook e2e tests start it (test/support/webhooks.ts, LOCAL_RECEIVERS_ENV).
test.use({ serviceEnv: { SVC_ALLOW_PRIVATE_URLS: 'true' } });

/** A real HTTP receiver on 127.0.0.1 whose answer the test changes: 500 until it recovers. */
interface Receiver {
  readonly url: string;
  /** Every request's path and body, in order. */
  readonly requests: Array<{ path: string; body: string }>;
  answer: number;
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const requests: Array<{ path: string; body: string }> = [];
  const state = { answer: 500 };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      requests.push({ path: request.url ?? '', body: Buffer.concat(chunks).toString('utf8') });
      response.writeHead(state.answer, { 'Content-Type': 'text/plain' });
      response.end(state.answer === 200 ? 'ok' : 'receiver down');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    requests,
    get answer() {
      return state.answer;
    },
    set answer(value: number) {
      state.answer = value;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let receiver: Receiver;
test.beforeAll(async () => {
  receiver = await startReceiver();
});
test.afterAll(async () => {
  await receiver.close();
});

/** A `configure` user of their own (writes are rate-limited per user): the least role Webhooks opens. */
async function configurer(base: string, name: string) {
  const admin = await ApiSession.signIn(base, ADMIN.email, ADMIN.password);
  const user = await invitedUser(admin, base, 'configure', name);
  return { ...user, api: await ApiSession.signIn(base, user.email, user.password) };
}

async function openSettingsWebhooks(page: Page) {
  await page.getByRole('link', { name: 'Settings' }).click();
  await page
    .getByRole('navigation', { name: 'Settings' })
    .getByRole('link', { name: 'Webhooks' })
    .click();
  await expect(page.getByRole('heading', { name: 'Webhooks', level: 2 })).toBeVisible();
}

test('a webhook is created with its events, its secret shown once, tested, edited, rotated', async ({
  page,
  service,
  makeAxeBuilder,
}) => {
  const me = await configurer(service.url, 'Webhook Maker');
  await signedIn(page, me.email, me.password);
  await openSettingsWebhooks(page);
  // configure opens Webhooks, not the administrators' pages.
  await expect(
    page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Organization' }),
  ).toHaveCount(0);
  await expect(page.getByText('No webhooks yet.')).toBeVisible();

  await page.getByRole('button', { name: 'New webhook' }).click();
  const dialog = page.getByRole('dialog', { name: 'New webhook' });
  await expect(dialog.getByRole('group', { name: 'Data sources' })).toBeVisible();
  await expectAccessible(makeAxeBuilder);
  // No event chosen: said before anything is sent.
  await dialog.getByLabel('Endpoint URL').fill(receiver.url);
  await dialog.getByRole('button', { name: 'Create webhook' }).click();
  await expect(dialog.getByText('Choose at least one event.')).toBeVisible();
  await dialog.getByRole('checkbox', { name: /agent\.created/ }).check();
  await dialog.getByRole('checkbox', { name: /^datasource\.processed/ }).check();
  await dialog.getByLabel('Description (optional)').fill('Build notifications');
  await documentScreenshot(page, 'settings-webhook-new-light');
  await dialog.getByRole('button', { name: 'Create webhook' }).click();

  const created = page.getByRole('dialog', { name: 'Webhook created' });
  await expect(created.getByText(/shown only this once/)).toBeVisible();
  const secret = (await created.getByText(/^whsec_/).textContent()) ?? '';
  expect(secret).toMatch(/^whsec_/);
  await expect(created.getByRole('button', { name: 'Copy secret' })).toBeVisible();
  await expectAccessible(makeAxeBuilder);
  await documentScreenshot(page, 'settings-webhook-secret-light');
  await created.getByRole('button', { name: 'Done' }).click();
  await expect(page.getByText(secret)).toHaveCount(0);

  const row = page.getByRole('row', { name: new RegExp(receiver.url) });
  await expect(row).toContainText('2 events');
  await expect(row).toContainText('Active');
  await expect(row).toContainText(`…${secret.slice(-4)}`);
  await documentScreenshot(page, 'settings-webhooks-light');
  await row.getByRole('link', { name: receiver.url }).click();
  await expect(page.getByRole('heading', { name: receiver.url })).toBeVisible();
  await expect(page.getByText('You: it receives what you may see.')).toBeVisible();

  // A failed test event, explained; then the receiver recovers.
  receiver.answer = 500;
  await page.getByRole('button', { name: 'Send test event' }).click();
  await expect(page.getByText(/Not delivered: the receiver answered HTTP 500/)).toBeVisible();
  receiver.answer = 200;
  await page.getByRole('button', { name: 'Send test event' }).click();
  await expect(page.getByText(/Delivered: the receiver answered HTTP 200/)).toBeVisible();
  expect(JSON.parse(receiver.requests.at(-1)?.body ?? '{}')).toMatchObject({
    type: 'webhook.test',
  });

  await page.getByRole('button', { name: 'Edit' }).click();
  const edit = page.getByRole('dialog', { name: 'Edit webhook' });
  await expect(edit.getByLabel('Endpoint URL')).toHaveValue(receiver.url);
  await expect(edit.getByRole('checkbox', { name: /agent\.created/ })).toBeChecked();
  await edit.getByRole('checkbox', { name: /agent\.deleted/ }).check();
  await edit.getByRole('button', { name: 'Save changes' }).click();
  await expect(edit).toHaveCount(0);
  await expect(page.getByRole('listitem').filter({ hasText: 'agent.deleted' })).toBeVisible();

  await page.getByRole('button', { name: 'Rotate secret' }).click();
  const rotate = page.getByRole('dialog', { name: 'Rotate the secret?' });
  await expect(rotate).toContainText(`ending ${secret.slice(-4)}`);
  await rotate.getByRole('button', { name: 'Rotate secret' }).click();
  const rotated = page.getByRole('dialog', { name: 'New signing secret' });
  await expect(rotated).toContainText('keeps signing beside it for 24 hours');
  const newSecret = (await rotated.getByText(/^whsec_/).textContent()) ?? '';
  expect(newSecret).toMatch(/^whsec_/);
  expect(newSecret).not.toBe(secret);
  await rotated.getByRole('button', { name: 'Done' }).click();
  await expect(page.getByText(`ends in ${newSecret.slice(-4)}`)).toBeVisible();
  await expectAccessible(makeAxeBuilder);
  await documentScreenshot(page, 'settings-webhook-light');
});

test('a webhook that fails then succeeds after Retry', async ({
  page,
  service,
  makeAxeBuilder,
}) => {
  test.setTimeout(45_000);
  const me = await configurer(service.url, 'Retry Person');
  receiver.answer = 500;
  const url = `${receiver.url}/retried`;
  const hook = await me.api.call<{ id: string }>('POST', '/api/v1/webhooks', {
    url,
    events: ['agent.created'],
  });
  await me.api.call('POST', '/api/v1/agents', { name: 'Retried agent', data_source_ids: [] });
  // The runtime's background loop publishes the event and makes the first attempt.
  await expect
    .poll(async () => {
      const listed = await me.api.call<{ deliveries: Array<{ attempts: unknown[] }> }>(
        'GET',
        `/api/v1/webhooks/${hook.id}/deliveries`,
      );
      return listed.deliveries[0]?.attempts.length ?? 0;
    })
    .toBeGreaterThan(0);

  await signedIn(page, me.email, me.password, `/settings/webhooks/${hook.id}`);
  const row = page.getByRole('row', { name: /agent\.created/ });
  // The first attempt fails, and the 5 s retry too (the page follows them without a reload);
  // the next is then 30 s away, so what comes next is the Retry's doing.
  await expect(row).toContainText('Waiting for a retry');
  await expect(row.getByRole('cell').nth(1)).toHaveText('2', { timeout: 15_000 });
  await expect(row).toContainText('HTTP 500');
  await expect(row).toContainText(/in \d+ s/);

  await page.getByLabel('Status').selectOption({ label: 'Failed' });
  await expect(page).toHaveURL(/status=failed/);
  await expect(page.getByText('No deliveries here with the status “Failed”.')).toBeVisible();
  await page.getByLabel('Status').selectOption({ label: 'Waiting for a retry' });
  await expect(page).toHaveURL(/status=waiting/);
  await expect(row).toBeVisible();

  receiver.answer = 200;
  await row.getByRole('button', { name: /^Retry/ }).click();
  // Sent now: its outcome is said, it leaves "waiting" (the filter) and shows under "Succeeded".
  await expect(page.getByText('Retried agent.created: succeeded (HTTP 200).')).toBeVisible();
  await expect(page.getByText(/No deliveries here/)).toBeVisible();
  await page.getByLabel('Status').selectOption({ label: 'Succeeded' });
  await expect(row).toContainText('Succeeded');
  await expect(row).toContainText('HTTP 200');
  await expect(row.getByRole('cell').nth(1)).toHaveText('3');
  await expect(row.getByRole('button', { name: /^Retry/ })).toHaveCount(0);
  expect(receiver.requests.filter((request) => request.path === '/hooks/retried')).toHaveLength(3);

  await row.getByRole('button', { name: /^Details/ }).click();
  const details = page.getByRole('dialog', { name: 'Delivery of agent.created' });
  await expect(details.getByRole('row')).toHaveCount(4);
  await expect(details).toContainText('Retried by hand');
  await expect(details.getByText('"name": "Retried agent"', { exact: false })).toBeVisible();
  await expectAccessible(makeAxeBuilder);
  await documentScreenshot(page, 'settings-webhook-delivery-light');
  await page.keyboard.press('Escape');
  await expect(details).toHaveCount(0);

  // Dark, and at phone width.
  await page.getByLabel('Status').selectOption({ label: 'All deliveries' });
  await page.getByRole('button', { name: 'Dark theme' }).click();
  await expectAccessible(makeAxeBuilder);
  await documentScreenshot(page, 'settings-webhook-dark');
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(page.getByRole('button', { name: 'Send test event' })).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await expectAccessible(makeAxeBuilder);
  await documentScreenshot(page, 'settings-webhook-phone-dark');
  await page.setViewportSize({ width: 1280, height: 800 });

  await page.getByRole('button', { name: 'Delete webhook' }).click();
  const confirm = page.getByRole('dialog', { name: 'Delete this webhook?' });
  await expectAccessible(makeAxeBuilder);
  await confirm.getByRole('button', { name: 'Delete webhook' }).click();
  await expect(page).toHaveURL(/\/settings\/webhooks$/);
  await expect(page.getByRole('link', { name: url })).toHaveCount(0);
});

test('refusals in words: an address refused, 403, 429; a role without Webhooks', async ({
  page,
  service,
}) => {
  const me = await configurer(service.url, 'Refused Person');
  await signedIn(page, me.email, me.password, '/settings/webhooks');

  // The service connects to the address when it is saved: nothing listens on port 9.
  await page.getByRole('button', { name: 'New webhook' }).click();
  const dialog = page.getByRole('dialog', { name: 'New webhook' });
  await dialog.getByLabel('Endpoint URL').fill('https://127.0.0.1:9/hook');
  await dialog.getByRole('checkbox', { name: /user\.created/ }).check();
  await dialog.getByRole('button', { name: 'Create webhook' }).click();
  await expect(dialog.getByRole('alert')).toContainText('Webhook URL refused');
  await expect(dialog.getByLabel('Endpoint URL')).toHaveAttribute('aria-invalid', 'true');

  await page.route('**/api/v1/webhooks', (route) =>
    route.request().method() === 'POST'
      ? route.fulfill({
          status: 429,
          headers: { 'Retry-After': '30', 'X-Request-Id': 'req_429' },
          contentType: 'application/json',
          body: JSON.stringify({
            error: {
              code: 'rate_limit_exceeded',
              message: 'Rate limit exceeded',
              details: { retry_after: 30 },
            },
            request_id: 'req_429',
          }),
        })
      : route.continue(),
  );
  await dialog.getByLabel('Endpoint URL').fill(receiver.url);
  await dialog.getByRole('button', { name: 'Create webhook' }).click();
  await expect(dialog.getByRole('alert')).toContainText('Too many requests: try again in 30 s.');
  await expect(dialog.getByRole('alert')).toContainText('Reference: req_429');
  await page.unrouteAll();
  await dialog.getByRole('button', { name: 'Cancel' }).click();

  await page.route('**/api/v1/webhooks?*', (route) =>
    route.fulfill({
      status: 403,
      headers: { 'X-Request-Id': 'req_403' },
      contentType: 'application/json',
      body: JSON.stringify({
        error: {
          code: 'forbidden',
          message: 'Insufficient role',
          details: { required_role: 'configure', current_role: 'train' },
        },
        request_id: 'req_403',
      }),
    }),
  );
  await page.reload();
  await expect(page.getByRole('alert')).toContainText(
    'Your role does not allow this (it needs configure).',
  );
  await expect(page.getByRole('alert')).toContainText('Reference: req_403');
  await page.unrouteAll();

  // A trainer has no Webhooks link; a typed address names the role it needs.
  const admin = await ApiSession.signIn(service.url, ADMIN.email, ADMIN.password);
  const trainer = await invitedUser(admin, service.url, 'train', 'Trainer Webhooks');
  await page.context().clearCookies();
  await signedIn(page, trainer.email, trainer.password, '/settings/webhooks');
  await expect(
    page.getByText('Webhooks is for people with the configure role; yours is train.'),
  ).toBeVisible();
  await expect(
    page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Webhooks' }),
  ).toHaveCount(0);
});
