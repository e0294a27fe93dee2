import type { Locator, Page } from '@playwright/test';
import {
  ADMIN,
  documentScreenshot,
  expect,
  expectAccessible,
  signedIn,
  test,
} from './support/fixtures';
import { callWithKey } from './support/http';

/**
 * Issue 28 item 6: a cited source names its document and opens it, marks
 * what the answer quotes, and is listed once however often the answer cites
 * it; the answer, an interaction and the analytics say how much of the
 * answer its sources support.
 */

const GUIDE = {
  name: 'express-guide.md',
  text: [
    '# Express',
    '',
    'Fast, unopinionated, minimalist web framework for Node.js.',
    '',
    '## Starting a server',
    '',
    'Call app.listen(3000) to start the server on port 3000.',
    '',
    '## Routing',
    '',
    "Use app.get('/path', handler) to answer GET requests on a path.",
    '',
  ].join('\n'),
};

/** The SSE body of a stream, as layers/core/http/sse.ts writes it. */
function sse(events: ReadonlyArray<[string, unknown]>): string {
  return events
    .map(([event, data]) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)
    .join('');
}

async function ask(page: Page, question: string): Promise<void> {
  await page.getByRole('textbox', { name: 'Question' }).fill(question);
  await page.getByRole('button', { name: 'Ask', exact: true }).click();
}

/** Spaces as one, for comparing a marked passage with the answer that quotes it. */
function squeezed(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** How far an element is scrolled. */
function scrollTopOf(locator: Locator): Promise<number> {
  return locator.evaluate((element) => element.scrollTop);
}

test.describe('Cited sources and groundedness', () => {
  // The interaction and analytics test reads what the first one asked.
  test.describe.configure({ mode: 'serial' });
  const run = Date.now().toString(36);
  const agent = { id: '', name: `Express helper ${run}` };
  let sourceId = '';

  test.beforeAll(async ({ service }) => {
    const source = await callWithKey<{ id: string }>(
      service.url,
      service.adminKey,
      'POST',
      '/api/v1/data-sources',
      { type: 'file', name: `Express docs ${run}` },
    );
    sourceId = source.id;
  });

  test('a file uploaded in the console is cited by its name, opens by its link, has the quoted part marked, and the answer says how much its sources support it', async ({
    page,
    service,
    makeAxeBuilder,
  }) => {
    // The file goes in through the console, as a person adds one.
    await signedIn(page, ADMIN.email, ADMIN.password, `/data-sources/${sourceId}`);
    await page.getByLabel('Choose files').setInputFiles({
      name: GUIDE.name,
      mimeType: 'text/markdown',
      buffer: Buffer.from(GUIDE.text, 'utf8'),
    });
    await expect(
      page.getByRole('list', { name: 'Uploads' }).getByRole('listitem').filter({
        hasText: GUIDE.name,
      }),
    ).toContainText(/Indexed, \d+ chunks?/, { timeout: 20_000 });
    Object.assign(
      agent,
      await callWithKey<{ id: string }>(service.url, service.adminKey, 'POST', '/api/v1/agents', {
        name: agent.name,
        data_source_ids: [sourceId],
      }),
    );

    await page.goto(`/agents/${agent.id}`);
    await ask(page, 'How do I start the server?');
    const turn = page.getByRole('list', { name: 'Conversation' }).getByRole('listitem').first();
    await expect(turn.getByText('Latency')).toBeVisible();
    const answer = squeezed((await turn.locator('.turn__text').textContent()) ?? '');
    expect(answer).toContain('app.listen(3000)');

    // How much of the answer its sources support, beside latency and cost, and what that means.
    const facts = turn.getByRole('definition');
    const about = turn.getByLabel('About this answer');
    await expect(about.getByRole('term').first()).toHaveText('Supported by sources');
    await expect(facts.first()).toContainText(/^\d{1,3}(\.\d)?%/);
    await about.getByRole('button', { name: 'What “Supported by sources” means' }).click();
    const meaning = page.getByText(
      /The share of the answer’s sentences that the passages it cites/,
    );
    await expect(meaning).toBeVisible();
    await expectAccessible(makeAxeBuilder);
    await page.keyboard.press('Escape');
    await expect(meaning).toBeHidden();

    // The answer's sources, once each, by the file's name.
    const sources = turn.getByRole('group', { name: 'Sources' }).getByRole('paragraph');
    await expect(sources.first()).toContainText(`[1] ${GUIDE.name}`);

    await turn.getByRole('button', { name: '[1]', exact: true }).first().click();
    const panel = page.getByRole('dialog', { name: new RegExp(`Source \\[1\\]: ${GUIDE.name}`) });
    await expect(panel).toBeVisible();
    // Opened at its top, the keyboard starting on its heading.
    await expect(panel.getByRole('heading', { level: 2 })).toBeFocused();
    expect(await scrollTopOf(panel)).toBe(0);

    // "Open document" opens the uploaded file itself, in a new tab.
    const link = panel.getByRole('link', { name: 'Open document' });
    await expect(link).toHaveAttribute('target', '_blank');
    const href = (await link.getAttribute('href')) ?? '';
    expect(href).toMatch(
      new RegExp(`/api/v1/data-sources/${sourceId}/files/doc_[0-9A-Za-z]+/content$`),
    );
    const opened = await page.request.get(href);
    expect(opened.status()).toBe(200);
    expect(await opened.text()).toBe(GUIDE.text);

    // The part the answer quotes is marked, and is in the answer.
    const marks = panel.locator('mark');
    await expect(marks.first()).toBeVisible();
    const marked = squeezed((await marks.first().textContent()) ?? '');
    expect(marked.length).toBeGreaterThan(0);
    expect(answer).toContain(marked);
    await expect(panel.locator('mark').filter({ hasText: 'app.listen(3000)' })).toHaveCount(1);

    await expectAccessible(makeAxeBuilder);
    await documentScreenshot(page, 'agent-source-light');
    await page.emulateMedia({ colorScheme: 'dark' });
    await expectAccessible(makeAxeBuilder);
    await documentScreenshot(page, 'agent-source-dark');
    await page.keyboard.press('Escape');
    await expect(panel).toBeHidden();

    // On a phone, dark: the same panel, reachable and readable.
    await page.setViewportSize({ width: 390, height: 844 });
    await sources.first().getByRole('button').click();
    await expect(panel).toBeVisible();
    await expect(panel.getByRole('heading', { level: 2 })).toBeFocused();
    await expect(panel.locator('mark').first()).toBeVisible();
    await expectAccessible(makeAxeBuilder);
    await documentScreenshot(page, 'agent-source-phone-dark');
  });

  test('an interaction’s detail marks the quoted part and says how much its sources support the answer; analytics averages it', async ({
    page,
    makeAxeBuilder,
  }) => {
    await signedIn(page, ADMIN.email, ADMIN.password, `/interactions?agent_id=${agent.id}`);
    await page.getByRole('button', { name: 'How do I start the server?' }).click();
    const dialog = page.getByRole('dialog', { name: 'Interaction' });
    await expect(dialog).toBeVisible();
    await expect(dialog.getByRole('term').filter({ hasText: 'Supported by sources' })).toHaveCount(
      1,
    );
    await expect(dialog).toContainText(/Supported by sources\d{1,3}(\.\d)?%/);
    await expect(dialog.getByRole('link', { name: GUIDE.name })).toBeVisible();
    await expect(dialog.locator('mark').first()).toBeVisible();
    // What the score means opens over the dialog; Esc closes it first, then the dialog.
    await dialog.getByRole('button', { name: 'What “Supported by sources” means' }).click();
    const meaning = page.getByText(
      /The share of the answer’s sentences that the passages it cites/,
    );
    await expect(meaning).toBeVisible();
    await expectAccessible(makeAxeBuilder);
    await page.keyboard.press('Escape');
    await expect(meaning).toBeHidden();
    await expect(dialog).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(dialog).toHaveCount(0);

    await page.goto(`/analytics?period=7d&agent_id=${agent.id}`);
    const totals = page.getByRole('region', { name: 'Totals for the range' });
    await expect(totals).toContainText(/Supported by sources\d{1,3}(\.\d)?%/);
    await expect(totals).toContainText('Average share of an answer’s sentences');
  });

  test('a passage cited under several numbers is one entry; its panel opens at the top with the passage scrolled to the mark; no link and no score are said plainly', async ({
    page,
    service,
    makeAxeBuilder,
  }) => {
    const faked = await callWithKey<{ id: string }>(
      service.url,
      service.adminKey,
      'POST',
      '/api/v1/agents',
      { name: `Release notes ${run}`, data_source_ids: [] },
    );
    // Sent as the service streams it, so the repeats and a long passage are certain.
    const lines = Array.from(
      { length: 40 },
      (_, index) => `Line ${index + 1} of the release notes.`,
    );
    const quote = 'Version 5 drops support for Node.js 16.';
    const passage = `${lines.join('\n')}\n${quote}\nThat is all.`;
    const quoteStart = passage.indexOf(quote);
    const long = {
      chunk_id: 'chk_notes',
      document_id: 'doc_notes',
      data_source_id: 'ds_notes',
      document_title: 'release-notes.txt',
      document_url: null as string | null,
      rank: 1,
      score: 0.5,
      similarity_score: 0.8,
      chunk_text: passage,
      quoted_ranges: [] as Array<{ start: number; end: number }>,
    };
    const other = {
      ...long,
      chunk_id: 'chk_other',
      document_id: 'doc_other',
      document_title: 'changelog.md',
      document_url: 'https://example.test/changelog',
      rank: 2,
      chunk_text: 'Version 4 was the last to run on Node.js 16.',
    };
    const text = `${quote} [1] Version 4 still runs there [2], and 5 needs Node.js 18 [3].`;
    const withoutPassage = ({ chunk_text: _, ...source }: typeof long) => source;
    await page.route('**/api/v1/query', (route) =>
      route.fulfill({
        status: 200,
        contentType: 'text/event-stream',
        body: sse([
          ['sources', { sources: [long, other, long] }],
          ['delta', { text }],
          [
            'done',
            {
              response: text,
              sources: [
                {
                  ...withoutPassage(long),
                  quoted_ranges: [{ start: quoteStart, end: quoteStart + quote.length }],
                },
                { ...withoutPassage(other), quoted_ranges: [{ start: 0, end: 9 }] },
                // The same passage again, quoting its last words as well.
                {
                  ...withoutPassage(long),
                  quoted_ranges: [{ start: passage.length - 12, end: passage.length + 50 }],
                },
              ],
              metadata: {
                interaction_id: 'int_fake',
                session_id: 'ses_fake',
                latency_ms: 12,
                tokens_input: 10,
                tokens_output: 20,
                cost_usd: 0,
                rag_strategy: 'hybrid',
                model: 'offline-extractive',
                billed_to: 'service',
                model_key_id: null,
              },
            },
          ],
        ]),
      }),
    );
    await signedIn(page, ADMIN.email, ADMIN.password, `/agents/${faked.id}`);
    await ask(page, 'Which Node.js does version 5 need?');
    const turn = page.getByRole('list', { name: 'Conversation' }).getByRole('listitem').first();
    await expect(turn.getByText('Latency')).toBeVisible();
    // No score in the result: nothing is said about it.
    await expect(turn.getByText('Supported by sources')).toHaveCount(0);

    const sources = turn.getByRole('group', { name: 'Sources' }).getByRole('paragraph');
    await expect(sources).toHaveCount(2);
    await expect(sources.first()).toHaveText('[1] release-notes.txt also cited as [3]');
    await expect(sources.nth(1)).toHaveText('[2] changelog.md');

    // [3] opens the entry of [1].
    const third = turn.getByRole('button', { name: '[3]', exact: true });
    await third.click();
    const panel = page.getByRole('dialog', { name: 'Source [1]: release-notes.txt' });
    await expect(panel).toBeVisible();
    await expect(panel.getByRole('heading', { level: 2 })).toBeFocused();
    await expect(panel).toContainText('The answer cites this passage as [1] and [3].');
    await expect(panel).toContainText('This document has no link to open');
    await expect(panel.getByRole('link')).toHaveCount(0);
    // Both listings' quotes are marked; the passage, not the dialog, is scrolled to the first.
    await expect(panel.locator('mark')).toHaveText([quote, 'That is all.']);
    expect(await scrollTopOf(panel)).toBe(0);
    const box = panel.getByRole('blockquote');
    await expect.poll(() => scrollTopOf(box)).toBeGreaterThan(0);
    const boxArea = await box.boundingBox();
    const markArea = await panel.locator('mark').first().boundingBox();
    expect(boxArea && markArea).toBeTruthy();
    if (boxArea && markArea) {
      expect(markArea.y).toBeGreaterThanOrEqual(boxArea.y);
      expect(markArea.y + markArea.height).toBeLessThanOrEqual(boxArea.y + boxArea.height);
    }
    await expectAccessible(makeAxeBuilder);
    await page.keyboard.press('Escape');
    await expect(panel).toBeHidden();
    await expect(third).toBeFocused();

    // [1] opens the same entry; [2] its own, with its link.
    await turn.getByRole('button', { name: '[1]', exact: true }).click();
    await expect(panel).toBeVisible();
    await page.keyboard.press('Escape');
    await turn.getByRole('button', { name: '[2]', exact: true }).click();
    const second = page.getByRole('dialog', { name: 'Source [2]: changelog.md' });
    await expect(second.getByRole('link', { name: 'Open document' })).toHaveAttribute(
      'href',
      'https://example.test/changelog',
    );
    await expect(second.locator('mark')).toHaveText(['Version 4']);
  });
});
