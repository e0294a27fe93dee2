import type { Page } from '@playwright/test';
import {
  ADMIN,
  documentScreenshot,
  expect,
  expectAccessible,
  signedIn,
  test,
} from './support/fixtures';
import { ApiSession, callWithKey, invitedUser, publishIndexedArticle } from './support/http';

const ARTICLE = {
  title: 'Kettle warranty',
  content: [
    '# Warranty',
    '',
    'Every kettle carries a warranty of two years from delivery.',
    '',
    '## Claims',
    '',
    'Claims go through the wombat desk, which answers within five days.',
  ].join('\n'),
};

/** The SSE body of a stream, as layers/core/http/sse.ts writes it. */
function sse(events: ReadonlyArray<[string, unknown]>): string {
  return events
    .map(([event, data]) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)
    .join('');
}

const SOURCE = {
  chunk_id: 'chk_1',
  document_title: 'Kettle warranty',
  document_url: null,
  rank: 1,
  score: 0.5,
  similarity_score: 0.8,
  chunk_text: 'Every kettle carries a warranty of two years.',
};

async function ask(page: Page, question: string): Promise<void> {
  await page.getByRole('textbox', { name: 'Question' }).fill(question);
  await page.getByRole('button', { name: 'Ask', exact: true }).click();
}

test.describe('The agent playground and search', () => {
  let agentId: string;
  let kbSourceId: string;

  test.beforeAll(async ({ service }) => {
    kbSourceId = await publishIndexedArticle(service.url, service.adminKey, ARTICLE);
    const agent = await callWithKey<{ id: string }>(
      service.url,
      service.adminKey,
      'POST',
      '/api/v1/agents',
      { name: 'Help desk', data_source_ids: [kbSourceId], rag_strategy: 'similarity' },
    );
    agentId = agent.id;
  });

  test('streams an answer whose citations open their source, continues the session, and records feedback', async ({
    page,
    service,
    makeAxeBuilder,
  }) => {
    await signedIn(page, ADMIN.email, ADMIN.password, `/agents/${agentId}`);
    await expect(page.getByRole('heading', { name: 'Help desk', level: 1 })).toBeVisible();
    // "/" goes to the question box from anywhere on the page.
    await page.getByRole('tab', { name: 'Playground' }).focus();
    await page.keyboard.press('/');
    await expect(page.getByRole('textbox', { name: 'Question' })).toBeFocused();

    await ask(page, 'How long is the kettle warranty?');
    const answers = page.getByRole('list', { name: 'Conversation' }).getByRole('listitem');
    await expect(answers.first()).toContainText('two years');
    const facts = answers.first().getByRole('definition');
    await expect(answers.first().getByText('Latency')).toBeVisible();
    // Supported by sources, latency, tokens, cost, model and strategy.
    await expect(facts).toHaveCount(6);
    await expect(answers.first()).toContainText('offline-extractive');
    await expect(answers.first()).toContainText('similarity');

    const citation = answers.first().getByRole('button', { name: '[1]', exact: true }).first();
    await citation.click();
    const panel = page.getByRole('dialog', { name: /Source \[1\]: Kettle warranty/ });
    await expect(panel).toBeVisible();
    await expect(panel).toContainText('two years from delivery');
    await expect(panel).toContainText('Score (cosine similarity)');
    await expect(panel.getByRole('link', { name: 'Open document' })).toHaveAttribute(
      'href',
      /\/api\/v1\/kb\/.+\/versions\/1/,
    );
    await expectAccessible(makeAxeBuilder);
    await documentScreenshot(page, 'agent-playground-light');
    await page.keyboard.press('Escape');
    await expect(panel).toBeHidden();
    await expect(citation).toBeFocused();

    // A follow-up continues the session (D18): the service answers from the same conversation.
    await ask(page, 'And the claims?');
    await expect(answers).toHaveCount(2);
    await expect(answers.nth(1)).toContainText('wombat desk');
    const interactions = await callWithKey<{
      interactions: Array<{ session_id: string; id: string }>;
    }>(service.url, service.adminKey, 'GET', `/api/v1/interactions?agent_id=${agentId}`);
    expect(new Set(interactions.interactions.map((entry) => entry.session_id)).size).toBe(1);

    // Feedback: one click on "Helpful" records it; a comment may follow, updating the same feedback.
    const helpful = answers.nth(1).getByRole('button', { name: 'Helpful', exact: true });
    await helpful.click();
    await expect(answers.nth(1).getByText('Recorded: helpful. Thank you.')).toBeVisible();
    await expect(helpful).toHaveAttribute('aria-pressed', 'true');
    const ratedBy = async () =>
      (
        await callWithKey<{
          interactions: Array<{ feedback: string | null; feedback_comment: string | null }>;
        }>(
          service.url,
          service.adminKey,
          'GET',
          `/api/v1/interactions?agent_id=${agentId}&feedback=positive`,
        )
      ).interactions;
    expect(await ratedBy()).toEqual([
      expect.objectContaining({ feedback: 'positive', feedback_comment: null }),
    ]);
    // Drawn thumbs, not emoji: nothing to show as an empty box where a font lacks them.
    await expect(helpful.locator('svg')).toHaveCount(1);
    await expect(helpful).toHaveText('Helpful');
    await answers.nth(1).getByRole('button', { name: 'Add a comment' }).click();
    const comment = answers.nth(1).getByRole('textbox', { name: 'Comment (optional)' });
    await expect(comment).toBeFocused();
    await comment.fill('Spot on');
    await answers.nth(1).getByRole('button', { name: 'Send comment' }).click();
    await expect(answers.nth(1).getByText(/Your comment: “Spot on”/)).toBeVisible();
    expect(await ratedBy()).toEqual([
      expect.objectContaining({ feedback: 'positive', feedback_comment: 'Spot on' }),
    ]);

    // "New conversation" starts a new session.
    await page.getByRole('button', { name: 'New conversation' }).click();
    await expect(page.getByRole('list', { name: 'Conversation' })).toHaveCount(0);
    await ask(page, 'How long is the kettle warranty?');
    await expect(answers.first()).toContainText('Latency');
    const after = await callWithKey<{ interactions: Array<{ session_id: string }> }>(
      service.url,
      service.adminKey,
      'GET',
      `/api/v1/interactions?agent_id=${agentId}`,
    );
    expect(new Set(after.interactions.map((entry) => entry.session_id)).size).toBe(2);

    await page.emulateMedia({ colorScheme: 'dark' });
    await answers.first().getByRole('button', { name: '[1]', exact: true }).first().click();
    await expect(page.getByRole('dialog')).toBeVisible();
    await expectAccessible(makeAxeBuilder);
    await documentScreenshot(page, 'agent-playground-dark');
    await page.keyboard.press('Escape');

    // The one click shows in analytics: one rated answer, rated helpful.
    await page.goto(`/analytics?period=7d&agent_id=${agentId}`);
    const totals = page.getByRole('region', { name: 'Totals for the range' });
    await expect(totals).toContainText('Accuracy100%');
    await expect(totals).toContainText('Positive share of rated answers');
  });

  test('says why there is no answer: a dropped stream, a 429, an error mid-answer, a disabled agent, nothing indexed', async ({
    page,
    service,
  }) => {
    const disabled = await callWithKey<{ id: string }>(
      service.url,
      service.adminKey,
      'POST',
      '/api/v1/agents',
      { name: 'Resting', data_source_ids: [kbSourceId], status: 'disabled' },
    );
    const empty = await callWithKey<{ id: string }>(
      service.url,
      service.adminKey,
      'POST',
      '/api/v1/agents',
      { name: 'Blank', data_source_ids: [] },
    );
    await signedIn(page, ADMIN.email, ADMIN.password, `/agents/${agentId}`);
    const turn = page.getByRole('list', { name: 'Conversation' }).getByRole('listitem').last();

    // The connection drops mid-answer: the text so far stays, marked as cut off.
    await page.route('**/api/v1/query', (route) =>
      route.fulfill({
        status: 200,
        contentType: 'text/event-stream',
        body: sse([
          ['sources', { sources: [SOURCE] }],
          ['delta', { text: 'Two years, as [1] says, and' }],
        ]),
      }),
    );
    await ask(page, 'Warranty?');
    await expect(turn.getByRole('alert')).toContainText(
      'The answer was cut off: the connection dropped before it finished. Ask again.',
    );
    await expect(turn).toContainText('Two years, as [1] says, and');
    await expect(turn.getByText('(incomplete)')).toBeVisible();
    await page.unrouteAll();

    // Too many questions: how long to wait, and the reference.
    await page.route('**/api/v1/query', (route) =>
      route.fulfill({
        status: 429,
        headers: { 'Retry-After': '42', 'X-Request-Id': 'req_busy' },
        contentType: 'application/json',
        body: JSON.stringify({
          error: {
            code: 'rate_limit_exceeded',
            message: 'Rate limit exceeded',
            details: { retry_after: 42 },
          },
          request_id: 'req_busy',
        }),
      }),
    );
    await ask(page, 'Warranty?');
    await expect(turn.getByRole('alert')).toContainText('Too many requests: try again in 42 s.');
    await expect(turn.getByRole('alert')).toContainText('Reference: req_busy');
    await page.unrouteAll();

    // The model provider breaks off after the sources (D19's error event).
    await page.route('**/api/v1/query', (route) =>
      route.fulfill({
        status: 200,
        contentType: 'text/event-stream',
        body: sse([
          ['sources', { sources: [SOURCE] }],
          ['delta', { text: 'Two' }],
          [
            'error',
            {
              error: {
                code: 'service_unavailable',
                message: 'The provider broke off',
                details: {},
              },
              request_id: 'req_broke',
            },
          ],
        ]),
      }),
    );
    await ask(page, 'Warranty?');
    await expect(turn.getByRole('alert')).toContainText(
      'No answer: the model is not answering for now.',
    );
    await expect(turn.getByRole('alert')).toContainText('Reference: req_broke');
    await page.unrouteAll();

    // A disabled agent refuses (409), in words.
    await page.goto(`/agents/${disabled.id}`);
    await ask(page, 'Warranty?');
    await expect(turn.getByRole('alert')).toContainText('This agent is disabled');

    // Nothing indexed: the honest no-answer, with no source.
    await page.goto(`/agents/${empty.id}`);
    await ask(page, 'Warranty?');
    await expect(turn).toContainText("This agent has no indexed sources yet, so I can't answer");
    await expect(turn).toContainText('No source supports this answer');
    await expect(turn.getByRole('button', { name: /^\[\d+\]$/ })).toHaveCount(0);
  });

  test("keeps a person's conversations: a reload shows the last, a follow-up continues it, the list reopens an earlier one", async ({
    page,
    service,
    makeAxeBuilder,
  }) => {
    const admin = await ApiSession.signIn(service.url, ADMIN.email, ADMIN.password);
    const person = await invitedUser(admin, service.url, 'train', 'Conversant');
    const agent = await callWithKey<{ id: string }>(
      service.url,
      service.adminKey,
      'POST',
      '/api/v1/agents',
      { name: 'Kettle desk', data_source_ids: [kbSourceId], rag_strategy: 'similarity' },
    );
    // Someone else's conversation with the same agent is not the person's to see.
    await callWithKey(service.url, service.adminKey, 'POST', '/api/v1/query', {
      agent_id: agent.id,
      query: 'A question the person never asked',
    });
    await signedIn(page, person.email, person.password, `/agents/${agent.id}`);
    const list = page.getByRole('region', { name: 'Your conversations' });
    await expect(list).toContainText('None yet');
    const turns = page
      .getByRole('list', { name: 'Conversation' })
      .getByRole('listitem')
      .filter({ hasText: 'You asked:' });

    await ask(page, 'How long is the kettle warranty?');
    await expect(turns.first()).toContainText('two years');
    await expect(list.getByRole('button')).toHaveText([/How long is the kettle warranty\?/]);

    // A reload shows the conversation again, with its sources, and a follow-up continues it.
    await page.reload();
    await expect(page.getByRole('status').filter({ hasText: 'Conversation reopened' })).toHaveText(
      'Conversation reopened: “How long is the kettle warranty?”. A question continues it.',
    );
    await expect(turns).toHaveCount(1);
    await expect(turns.first()).toContainText('two years');
    await expect(turns.first().getByRole('group', { name: 'Sources' })).toContainText(
      'Kettle warranty',
    );
    await ask(page, 'And the claims?');
    await expect(turns).toHaveCount(2);
    await expect(turns.nth(1)).toContainText('wombat desk');
    const asked = await callWithKey<{ interactions: Array<{ session_id: string; query: string }> }>(
      service.url,
      service.adminKey,
      'GET',
      `/api/v1/interactions?agent_id=${agent.id}`,
    );
    const theirs = asked.interactions.filter(
      (item) => item.query !== 'A question the person never asked',
    );
    expect(theirs).toHaveLength(2);
    expect(new Set(theirs.map((item) => item.session_id)).size).toBe(1);
    await expect(list.getByRole('button')).toHaveText([
      /How long is the kettle warranty\?.*2 questions/,
    ]);

    // A new conversation is listed first; the earlier one reopens with its answers and sources.
    await page.getByRole('button', { name: 'New conversation' }).click();
    await ask(page, 'Who handles claims?');
    await expect(turns.first()).toContainText('Latency');
    await expect(list.getByRole('button')).toHaveText([
      /Who handles claims\?/,
      /How long is the kettle warranty\?/,
    ]);
    await expect(list.getByRole('button').first()).toHaveAttribute('aria-current', 'true');
    await list.getByRole('button', { name: /How long is the kettle warranty/ }).click();
    await expect(turns).toHaveCount(2);
    await expect(turns.nth(1)).toContainText('wombat desk');
    await expect(list.getByRole('button').nth(1)).toHaveAttribute('aria-current', 'true');
    await turns.first().getByRole('button', { name: '[1]', exact: true }).first().click();
    const panel = page.getByRole('dialog', { name: /Source \[1\]: Kettle warranty/ });
    await expect(panel.getByRole('heading', { level: 2 })).toBeFocused();
    await page.keyboard.press('Escape');
    await expectAccessible(makeAxeBuilder);
    await documentScreenshot(page, 'agent-conversations-light');

    await page.emulateMedia({ colorScheme: 'dark' });
    await page.setViewportSize({ width: 390, height: 844 });
    await expect(list).toBeVisible();
    await expectAccessible(makeAxeBuilder);
    await documentScreenshot(page, 'agent-conversations-phone-dark');
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(width).toBeLessThanOrEqual(390);
  });

  test('an answer is safe Markdown with its citations as buttons, and can be copied or asked again', async ({
    page,
    context,
    makeAxeBuilder,
  }) => {
    const markdown = [
      'Two steps [1]:',
      '',
      '1. Fill the kettle to the **line** [1].',
      '2. Run `descale --now [1]` once.',
      '',
      '```',
      'kettle --warranty',
      '```',
      '',
      '<img src=x onerror="document.title=\'owned\'"> <b>raw</b>',
    ].join('\n');
    await page.route('**/api/v1/query', (route) =>
      route.fulfill({
        status: 200,
        contentType: 'text/event-stream',
        body: sse([
          ['sources', { sources: [SOURCE] }],
          ['delta', { text: markdown }],
          [
            'done',
            {
              response: markdown,
              sources: [{ ...SOURCE, chunk_text: undefined, quoted_ranges: [] }],
              metadata: {
                interaction_id: 'int_01hzzzzzzzzzzzzzzzzzzzzzzz',
                session_id: 'sess_01hzzzzzzzzzzzzzzzzzzzzzzz',
                latency_ms: 5,
                tokens_input: 1,
                tokens_output: 2,
                cost_usd: 0,
                rag_strategy: 'similarity',
                model: 'offline-extractive',
                billed_to: 'service',
                model_key_id: null,
                groundedness: 1,
              },
            },
          ],
        ]),
      }),
    );
    await signedIn(page, ADMIN.email, ADMIN.password, `/agents/${agentId}`);
    await ask(page, 'How do I descale it?');
    const turn = page
      .getByRole('list', { name: 'Conversation' })
      .getByRole('listitem')
      .filter({ hasText: 'You asked:' })
      .last();
    await expect(turn.getByText('Latency')).toBeVisible();
    const answer = turn.locator('.turn__markdown');
    await expect(answer.getByRole('listitem')).toHaveCount(2);
    await expect(answer.locator('strong')).toHaveText('line');
    await expect(answer.locator('pre code')).toHaveText('kettle --warranty\n');
    // A [1] in code stays code; in the text it is a button that opens the source.
    await expect(answer.locator('code').first()).toHaveText('descale --now [1]');
    await expect(answer.getByRole('button', { name: '[1]', exact: true })).toHaveCount(2);
    // Raw HTML is text, never markup.
    await expect(answer.locator('img, b')).toHaveCount(0);
    await expect(answer).toContainText('<b>raw</b>');
    expect(await page.title()).not.toBe('owned');
    await answer.getByRole('listitem').first().getByRole('button', { name: '[1]' }).click();
    await expect(page.getByRole('dialog', { name: /Source \[1\]/ })).toBeVisible();
    await page.keyboard.press('Escape');

    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    await turn.getByRole('button', { name: 'Copy answer' }).click();
    await expect(turn.getByRole('button', { name: 'Copied' })).toBeVisible();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(markdown);
    await expectAccessible(makeAxeBuilder);

    await documentScreenshot(page, 'agent-answer-markdown-light');
    await turn.getByRole('button', { name: 'Ask again' }).click();
    const again = page
      .getByRole('list', { name: 'Conversation' })
      .getByRole('listitem')
      .filter({ hasText: 'You asked: How do I descale it?' });
    await expect(again).toHaveCount(2);
  });

  test('the search tab ranks passages by the chosen strategy, with its score labelled', async ({
    page,
    makeAxeBuilder,
  }) => {
    await signedIn(page, ADMIN.email, ADMIN.password, `/agents/${agentId}`);
    await page.getByRole('tab', { name: 'Search' }).click();
    await expect(page).toHaveURL(/\?tab=search$/);
    await page.getByRole('searchbox', { name: 'Search for' }).fill('wombat desk claims');
    await page.getByRole('combobox', { name: 'Strategy' }).selectOption('hybrid');
    await page.getByRole('spinbutton', { name: 'Top k' }).fill('3');
    await page.getByRole('spinbutton', { name: 'Similarity threshold' }).fill('0');
    await expect(page.getByRole('checkbox', { name: 'Knowledge base' })).toBeChecked();
    await page.getByRole('button', { name: 'Search', exact: true }).click();

    const passages = page.getByRole('region', { name: 'Passages' }).getByRole('listitem');
    await expect(passages.first()).toContainText('wombat desk');
    await expect(passages.first()).toContainText('1. Kettle warranty');
    await expect(passages.first()).toContainText('Score (reciprocal rank fusion)');
    await expect(passages.first()).toContainText('Cosine similarity');
    await expect(page.getByRole('status').filter({ hasText: 'ranked by hybrid' })).toBeVisible();
    await expectAccessible(makeAxeBuilder);
    await documentScreenshot(page, 'agent-search-light');

    // A reload keeps the tab; arrow keys move between the tabs.
    await page.reload();
    await expect(page.getByRole('tab', { name: 'Search' })).toHaveAttribute(
      'aria-selected',
      'true',
    );
    await page.getByRole('tab', { name: 'Search' }).focus();
    await page.keyboard.press('ArrowLeft');
    await expect(page.getByRole('tab', { name: 'Playground' })).toBeFocused();
    await expect(page.getByRole('textbox', { name: 'Question' })).toBeVisible();

    await page.emulateMedia({ colorScheme: 'dark' });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole('tab', { name: 'Search' }).click();
    await page.getByRole('searchbox', { name: 'Search for' }).fill('kettle warranty');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await expect(passages.first()).toBeVisible();
    await expectAccessible(makeAxeBuilder);
    await documentScreenshot(page, 'agent-search-dark');
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(width).toBeLessThanOrEqual(390);
  });

  test('a readonly user asks and searches, but neither changes the agent nor rates answers', async ({
    page,
    service,
  }) => {
    const admin = await ApiSession.signIn(service.url, ADMIN.email, ADMIN.password);
    const reader = await invitedUser(admin, service.url, 'readonly', 'Reader');
    await signedIn(page, reader.email, reader.password, `/agents/${agentId}`);

    await expect(page.getByRole('heading', { name: 'Help desk', level: 1 })).toBeVisible();
    await expect(page.getByRole('link', { name: 'Edit' })).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Delete' })).toHaveCount(0);
    await ask(page, 'How long is the kettle warranty?');
    const turn = page.getByRole('list', { name: 'Conversation' }).getByRole('listitem');
    await expect(turn).toContainText('Latency');
    await expect(turn.getByRole('button', { name: 'Helpful', exact: true })).toHaveCount(0);
  });
});
