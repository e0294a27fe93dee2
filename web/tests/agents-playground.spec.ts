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
  await page.getByRole('button', { name: 'Ask' }).click();
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

    // Feedback: thumbs up with a comment, recorded on the interaction.
    await answers.nth(1).getByRole('button', { name: 'Helpful', exact: true }).click();
    await answers.nth(1).getByRole('textbox', { name: 'Comment (optional)' }).fill('Spot on');
    await answers.nth(1).getByRole('button', { name: 'Send feedback' }).click();
    await expect(answers.nth(1).getByText('Thank you: your feedback is recorded.')).toBeVisible();
    const rated = await callWithKey<{
      interactions: Array<{ feedback: string | null; feedback_comment: string | null }>;
    }>(service.url, service.adminKey, 'GET', '/api/v1/interactions?feedback=positive');
    expect(rated.interactions[0]).toMatchObject({
      feedback: 'positive',
      feedback_comment: 'Spot on',
    });

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
    await expect(turn).toContainText('Two years, as [1] says, and (incomplete)');
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
    await expect(turn.getByRole('alert')).toContainText('The service failed to answer.');
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
