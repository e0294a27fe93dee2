import type AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { agentWithHelpPage } from './support/asked-questions';
import { ADMIN, expect, expectAccessible, signedIn, test } from './support/fixtures';
import { ApiSession, callWithKey, invitedUser } from './support/http';

// The webhook form connects to its URL on save: a loopback receiver is allowed here.
test.use({ serviceEnv: { SVC_ALLOW_PRIVATE_URLS: 'true' } });

/**
 * Figures that mean what they say (issue 31 item 6): one person asking in
 * three conversations is one user in Analytics; Interactions name who asked,
 * search the text and keep to what was not answered; an evaluation says per
 * question whether it was right and why; webhooks offer each event once.
 * Each screen also at 390 px in the dark, with its axe scan.
 */
test.describe('Numbers that mean what they say', () => {
  const unique = Date.now().toString(36);
  const agent = { id: '', name: `Counted lamp ${unique}` };
  const empty = { id: '', name: `Empty shelf ${unique}` };
  const dana = { id: '', name: `Dana ${unique}`, email: '', password: '' };
  const run = { id: '' };

  test.beforeAll(async ({ service }) => {
    test.setTimeout(90_000);
    const key = service.adminKey;
    Object.assign(agent, await agentWithHelpPage(service.url, key, agent.name));
    empty.id = (
      await callWithKey<{ id: string }>(service.url, key, 'POST', '/api/v1/agents', {
        name: empty.name,
        data_source_ids: [],
      })
    ).id;
    const admin = await ApiSession.signIn(service.url, ADMIN.email, ADMIN.password);
    Object.assign(dana, await invitedUser(admin, service.url, 'configure', dana.name));
    const asDana = await ApiSession.signIn(service.url, dana.email, dana.password);
    // Three questions, each in a conversation of its own (no session_id carried over).
    for (const query of [
      'Can I return the lamp for a refund?',
      'What does the warranty cover?',
      'Which Wi-Fi does the lamp need?',
    ]) {
      await asDana.call('POST', '/api/v1/query', { agent_id: agent.id, query });
    }
    // A program's question the other agent cannot answer: it has nothing indexed.
    await callWithKey(service.url, key, 'POST', '/api/v1/query', {
      agent_id: empty.id,
      query: 'Where can I buy a refund voucher?',
    });
    // Dana runs the evaluation too: its questions are asked as her, each in a conversation of its own.
    run.id = (
      await asDana.call<{ id: string }>('POST', '/api/v1/evals', {
        agent_id: agent.id,
        name: `Verdicts ${unique}`,
        questions: [
          {
            question: 'What does the warranty cover?',
            expected_answer: 'a two-year warranty covering the LED panel',
          },
          {
            question: 'How long is the warranty?',
            expected_answer: 'Every Nimbus Lamp has a five-year warranty.',
          },
          { question: 'Which Wi-Fi does the lamp need?' },
        ],
      })
    ).id;
    for (const started = Date.now(); ; ) {
      const status = await callWithKey<{ status: string }>(
        service.url,
        key,
        'GET',
        `/api/v1/evals/${run.id}?limit=1`,
      );
      if (status.status === 'completed') break;
      if (status.status === 'failed' || Date.now() - started > 30_000) {
        throw new Error(`the run did not complete: ${status.status}`);
      }
      await new Promise((done) => setTimeout(done, 200));
    }
  });

  /** Each check again at 390 px in the dark: the scan passes and nothing is wider than the screen. */
  async function alsoNarrowAndDark(page: Page, makeAxeBuilder: () => AxeBuilder) {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.emulateMedia({ colorScheme: 'dark' });
    await expectAccessible(makeAxeBuilder);
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(width).toBeLessThanOrEqual(390);
  }

  test('analytics counts one person asking in six conversations once', async ({
    page,
    makeAxeBuilder,
  }) => {
    await signedIn(page, ADMIN.email, ADMIN.password, `/analytics?period=7d&agent_id=${agent.id}`);
    const totals = page.getByRole('region', { name: 'Totals for the range' });
    // Three questions of her own and three of her evaluation's.
    await expect(totals).toContainText('Queries6');
    await expect(totals).toContainText('Unique users1');
    await expect(totals).toContainText(
      'People who asked, each counted once however many conversations they had; an API key counts as one',
    );
    await expectAccessible(makeAxeBuilder);
    await alsoNarrowAndDark(page, makeAxeBuilder);
  });

  test('interactions name who asked, find text and keep to the unanswered', async ({
    page,
    makeAxeBuilder,
  }) => {
    await signedIn(page, ADMIN.email, ADMIN.password, '/interactions');
    const filters = page.getByRole('form', { name: 'Filter interactions' });
    await filters.getByLabel('Search questions and answers').fill('REFUND');
    await filters.getByRole('button', { name: 'Apply filters' }).click();
    await expect(page).toHaveURL(/q=REFUND/);
    const table = page.getByRole('table');
    await expect(table.getByRole('rowheader')).toHaveText([
      'Where can I buy a refund voucher?',
      'Can I return the lamp for a refund?',
    ]);
    const danaRow = table.getByRole('row', { name: /Can I return the lamp for a refund\?/ });
    await expect(danaRow.getByRole('cell').first()).toHaveText(`${dana.name}${dana.email}`);
    await expect(table).not.toContainText('usr_');

    await filters.getByLabel('Answered').selectOption({ label: 'Not answered' });
    await filters.getByRole('button', { name: 'Apply filters' }).click();
    await expect(page).toHaveURL(/answered=false/);
    await expect(table.getByRole('rowheader')).toHaveText(['Where can I buy a refund voucher?']);
    await expect(table.getByRole('row').nth(1).getByRole('cell').first()).toContainText('API key');
    await expectAccessible(makeAxeBuilder);

    // The search and the filter survive a reload; the dialog names who asked too.
    await page.reload();
    await expect(filters.getByLabel('Search questions and answers')).toHaveValue('REFUND');
    await expect(filters.getByLabel('Answered')).toHaveValue('false');
    await filters.getByLabel('Answered').selectOption({ label: 'Answered or not' });
    await filters.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByRole('button', { name: 'Can I return the lamp for a refund?' }).click();
    const dialog = page.getByRole('dialog', { name: 'Interaction' });
    await expect(dialog).toContainText(`Asked by${dana.name} (${dana.email})`);
    await dialog.getByRole('button', { name: 'Close' }).click();
    await alsoNarrowAndDark(page, makeAxeBuilder);
  });

  test('an evaluation shows a verdict per question with its reason, and a pass rate', async ({
    page,
    makeAxeBuilder,
  }) => {
    await signedIn(page, ADMIN.email, ADMIN.password, `/evaluations/${run.id}`);
    const totals = page.getByRole('region', { name: 'Totals' });
    await expect(totals).toContainText('Pass rate50%1 of 2 judged questions right');
    await expect(totals).toContainText('groundedness, not correctness');
    await expect(page.getByText('What these figures mean')).toBeVisible();
    await expect(totals).toContainText(
      'A wrong answer that quotes a passage word for word still scores 100 %.',
    );

    const right = page.getByRole('article', { name: 'What does the warranty cover?' });
    await expect(right).toContainText('Verdict: Right');
    await expect(right).toContainText('Passed: The answer contains the expected answer.');
    const wrong = page.getByRole('article', { name: 'How long is the warranty?' });
    await expect(wrong).toContainText('Verdict: Wrong');
    await expect(wrong).toContainText(
      'Failed: The answer lacks “five”, which the expected answer states',
    );
    const unjudged = page.getByRole('article', { name: 'Which Wi-Fi does the lamp need?' });
    await expect(unjudged).toContainText('Verdict: Not judged');
    await expectAccessible(makeAxeBuilder);

    await page.goto('/evaluations');
    const list = page.getByRole('table');
    await expect(list.getByRole('columnheader', { name: 'Pass rate' })).toBeVisible();
    await expect(list.getByRole('row', { name: new RegExp(`Verdicts ${unique}`) })).toContainText(
      '50%',
    );
    await page.goto(`/evaluations/${run.id}`);
    await expect(page.getByRole('article', { name: 'How long is the warranty?' })).toBeVisible();
    await alsoNarrowAndDark(page, makeAxeBuilder);
  });

  test('webhooks offer each event once, under its documented name', async ({
    page,
    makeAxeBuilder,
  }) => {
    await signedIn(page, ADMIN.email, ADMIN.password, '/settings/webhooks');
    await page.getByRole('button', { name: 'New webhook' }).click();
    const dialog = page.getByRole('dialog', { name: 'New webhook' });
    const dataSources = dialog.getByRole('group', { name: 'Data sources' });
    await expect(dataSources.getByRole('checkbox')).toHaveCount(3);
    for (const name of ['datasource.created', 'datasource.processed', 'datasource.failed']) {
      await expect(
        dataSources.getByRole('checkbox', { name: new RegExp(`^${name} `) }),
      ).toHaveCount(1);
    }
    await expect(dialog).not.toContainText('data_source.synced');
    await expect(dialog).not.toContainText('data_source.processed');
    await expectAccessible(makeAxeBuilder);
    await alsoNarrowAndDark(page, makeAxeBuilder);
  });
});
