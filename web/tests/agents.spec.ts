import {
  ADMIN,
  documentScreenshot,
  expect,
  expectAccessible,
  signedIn,
  test,
} from './support/fixtures';
import { ApiSession, callWithKey, createAgentWithKey, invitedUser } from './support/http';

test.describe('Agents', () => {
  test('lists agents a page at a time, and a deep link to a page survives a reload', async ({
    page,
    service,
    makeAxeBuilder,
  }) => {
    // 21 agents make two pages of 20; a key's Write bucket holds 10 (D16), so three keys share them.
    const admin = await ApiSession.signIn(service.url, ADMIN.email, ADMIN.password);
    const keys = [
      service.adminKey,
      await admin.createKey('paging 1'),
      await admin.createKey('paging 2'),
    ];
    for (let index = 1; index <= 21; index += 1) {
      await createAgentWithKey(
        service.url,
        keys[index % 3] ?? service.adminKey,
        `Paging agent ${index}`,
      );
    }
    await signedIn(page, ADMIN.email, ADMIN.password, '/agents?page=2');

    await expect(page).toHaveURL(/\/agents\?page=2$/);
    await expect(page.getByText(/Page 2 of \d+/)).toBeVisible();
    await page.reload();
    await expect(page.getByText(/Page 2 of \d+/)).toBeVisible();
    await page.getByRole('link', { name: 'Previous page' }).click();
    await expect(page.getByRole('rowheader', { name: 'Paging agent 21' })).toBeVisible();
    await expectAccessible(makeAxeBuilder);
  });

  test("a screen's refusals say what to do, with the reference to quote", async ({ page }) => {
    await signedIn(page, ADMIN.email, ADMIN.password, '/settings');
    const refusals: Array<{
      status: number;
      headers: Record<string, string>;
      error: Record<string, unknown>;
      shown: string;
    }> = [
      {
        status: 429,
        headers: { 'Retry-After': '30' },
        error: {
          code: 'rate_limit_exceeded',
          message: 'Rate limit exceeded',
          details: { reason: 'scope_rate', retry_after: 30 },
        },
        shown: 'Too many requests: try again in 30 s.',
      },
      {
        status: 403,
        headers: {},
        error: {
          code: 'forbidden',
          message: 'Insufficient role',
          details: { required_role: 'configure', current_role: 'readonly' },
        },
        shown: 'Your role does not allow this (it needs configure).',
      },
    ];
    for (const refusal of refusals) {
      await page.route('**/api/v1/agents?*', (route) =>
        route.fulfill({
          status: refusal.status,
          headers: { ...refusal.headers, 'X-Request-Id': `req_${refusal.status}` },
          contentType: 'application/json',
          body: JSON.stringify({ error: refusal.error, request_id: `req_${refusal.status}` }),
        }),
      );
      await page
        .getByRole('navigation', { name: 'Main' })
        .getByRole('link', { name: 'Agents' })
        .click();

      const alert = page.getByRole('alert');
      await expect(alert).toContainText(refusal.shown);
      await expect(alert).toContainText(`Reference: req_${refusal.status}`);
      await expect(alert.getByRole('button', { name: 'Copy reference' })).toBeVisible();
      await page.unrouteAll();
      await page
        .getByRole('navigation', { name: 'Main' })
        .getByRole('link', { name: 'Settings' })
        .click();
    }
  });

  test('creates an agent with every field, finds it by name, edits it and deletes it after asking', async ({
    page,
    service,
    makeAxeBuilder,
  }) => {
    const source = await callWithKey<{ id: string }>(
      service.url,
      service.adminKey,
      'POST',
      '/api/v1/data-sources',
      { type: 'website', name: 'Product docs', config: { url: 'https://docs.example.test/' } },
    );
    await signedIn(page, ADMIN.email, ADMIN.password, '/agents');
    await page.getByRole('link', { name: 'New agent' }).click();
    await expect(page.getByRole('heading', { name: 'New agent' })).toBeVisible();
    await page.getByRole('textbox', { name: 'Name' }).fill('Returns helper');
    await page.getByRole('checkbox', { name: /Product docs/ }).check();
    await page.getByRole('combobox', { name: 'Strategy' }).selectOption('mmr');
    // The knowledge base is offered, ticked for a new agent; this one answers from the docs only.
    await page.getByRole('checkbox', { name: /Answer from the knowledge base/ }).uncheck();
    // The models this service can serve: without a provider, the offline one.
    await page
      .getByRole('combobox', { name: 'Model', exact: true })
      .selectOption('offline-extractive');
    await page.getByRole('spinbutton', { name: 'Temperature' }).fill('0.7');
    await page.getByRole('spinbutton', { name: 'Max tokens' }).fill('512');
    await page.getByRole('textbox', { name: 'System prompt' }).fill('Answer briefly.');
    // D33: an administrator chooses the model key (none here: the service's provider).
    await expect(page.getByRole('combobox', { name: 'Model key' })).toHaveValue('');
    await expectAccessible(makeAxeBuilder);
    await documentScreenshot(page, 'agent-form-light');
    await page.getByRole('button', { name: 'Create agent' }).click();

    await expect(page.getByRole('heading', { name: 'Returns helper', level: 1 })).toBeVisible();
    const id = /\/agents\/(agt_\w+)/.exec(page.url())?.[1] ?? '';
    expect(
      await callWithKey(service.url, service.adminKey, 'GET', `/api/v1/agents/${id}`),
    ).toMatchObject({
      name: 'Returns helper',
      data_source_ids: [source.id],
      rag_strategy: 'mmr',
      model: 'offline-extractive',
      temperature: 0.7,
      max_tokens: 512,
      system_prompt: 'Answer briefly.',
      model_key_id: null,
      status: 'active',
    });

    // The list's search box: the name filter (P244) and the address keep it.
    await page.getByRole('link', { name: 'Agents' }).first().click();
    await page.getByRole('searchbox', { name: 'Search agents' }).fill('RETURNS');
    await expect(page).toHaveURL(/\/agents\?q=RETURNS$/);
    await expect(page.getByRole('rowheader')).toHaveText(['Returns helper']);
    await expectAccessible(makeAxeBuilder);
    await documentScreenshot(page, 'agents-list-light');
    await page.emulateMedia({ colorScheme: 'dark' });
    await documentScreenshot(page, 'agents-list-dark');
    await page.emulateMedia({ colorScheme: 'light' });
    await page.getByRole('searchbox', { name: 'Search agents' }).fill('no such agent');
    await expect(page.getByRole('status')).toHaveText('No agent’s name contains “no such agent”.');
    await page.getByRole('searchbox', { name: 'Search agents' }).fill('returns');
    await page.getByRole('link', { name: 'Returns helper' }).click();

    // Edit: the form holds what is stored; a bad value comes back in words.
    await page.getByRole('link', { name: 'Edit' }).click();
    await expect(page.getByRole('textbox', { name: 'Name' })).toHaveValue('Returns helper');
    await expect(page.getByRole('checkbox', { name: /Product docs/ })).toBeChecked();
    await expect(page.getByRole('spinbutton', { name: 'Temperature' })).toHaveValue('0.7');
    // A refusal names the field by its label (P133's misfit, faked: it needs a provider's key).
    await page.route(`**/api/v1/agents/${id}`, (route) =>
      route.request().method() === 'PUT'
        ? route.fulfill({
            status: 400,
            contentType: 'application/json',
            body: JSON.stringify({
              error: {
                code: 'invalid_request',
                message: 'The model does not fit the model key',
                details: { fields: [{ path: 'model', message: 'not an OpenAI model' }] },
              },
              request_id: 'req_misfit',
            }),
          })
        : route.continue(),
    );
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect(page.getByRole('alert')).toContainText('The model does not fit the model key');
    await expect(page.getByText('Model: not an OpenAI model')).toBeVisible();
    await page.unrouteAll();
    await page.getByRole('textbox', { name: 'Name' }).fill('Returns and refunds');
    await page.getByRole('combobox', { name: 'Status' }).selectOption('disabled');
    await page.emulateMedia({ colorScheme: 'dark' });
    await documentScreenshot(page, 'agent-form-dark');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect(
      page.getByRole('heading', { name: 'Returns and refunds', level: 1 }),
    ).toBeVisible();
    await expect(page.getByText('Disabled: refuses questions')).toBeVisible();

    // Delete asks first; Cancel keeps it, Delete agent removes it.
    await page.getByRole('button', { name: 'Delete' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete “Returns and refunds”?' });
    await expect(dialog).toBeVisible();
    await expectAccessible(makeAxeBuilder);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect(dialog).toBeHidden();
    await expect(page.getByRole('button', { name: 'Delete' })).toBeFocused();
    await page.getByRole('button', { name: 'Delete' }).click();
    await dialog.getByRole('button', { name: 'Delete agent' }).click();
    await expect(page).toHaveURL(/\/agents$/);
    const gone = await fetch(`${service.url}/api/v1/agents/${id}`, {
      headers: { Authorization: `Bearer ${service.adminKey}` },
    });
    expect(gone.status).toBe(404);
  });

  test('what a role or a group does not allow is not shown', async ({ page, service }) => {
    const admin = await ApiSession.signIn(service.url, ADMIN.email, ADMIN.password);
    const agent = await callWithKey<{ id: string }>(
      service.url,
      service.adminKey,
      'POST',
      '/api/v1/agents',
      { name: 'Team agent', data_source_ids: [] },
    );
    // configure, in a group that lists agents (P80): may edit that agent, never create (P81).
    const editor = await invitedUser(admin, service.url, 'configure', 'Editor');
    const group = await admin.call<{ id: string }>('POST', '/api/v1/groups', {
      name: 'Team',
      agent_ids: [agent.id],
    });
    await admin.call('PUT', `/api/v1/groups/${group.id}/members/${editor.id}`);
    await signedIn(page, editor.email, editor.password, '/agents');
    await expect(page.getByRole('rowheader')).toHaveText(['Team agent']);
    await expect(page.getByRole('link', { name: 'New agent' })).toHaveCount(0);
    await page.getByRole('link', { name: 'Team agent' }).click();
    await page.getByRole('link', { name: 'Edit' }).click();
    // D33, P246: only an administrator lists model keys, so the field is not there.
    await expect(page.getByRole('textbox', { name: 'Name' })).toHaveValue('Team agent');
    await expect(page.getByRole('combobox', { name: 'Model key' })).toHaveCount(0);
    await page.goto('/agents/new');
    await expect(page.getByText('Your groups restrict the agents you may use')).toBeVisible();
  });
});
