/**
 * Interactions for the Interactions and Analytics specs, made as a client
 * makes them: a file data source with an uploaded help page (indexed by the
 * runtime's own workers), an agent answering from it, questions asked
 * through POST /api/v1/query and feedback given on some (D9: one Admin key).
 */

import { callWithKey } from './http';

const HELP_PAGE = `# Nimbus Lamp help

## Returns
You can return a Nimbus Lamp within 30 days of delivery for a full refund.
Return shipping is free in the EU and the UK.

## Warranty
Every Nimbus Lamp has a two-year warranty covering the LED panel and the electronics.
It does not cover damage from liquids.

## Wi-Fi
Hold the power button for five seconds until the light pulses blue, then open the app.
The lamp works with 2.4 GHz Wi-Fi networks only.
`;

const call = callWithKey;

/** An agent answering from an indexed help page; resolves once the page is indexed. */
export async function agentWithHelpPage(
  base: string,
  key: string,
  name: string,
): Promise<{ id: string; name: string }> {
  const source = await call<{ id: string }>(base, key, 'POST', '/api/v1/data-sources', {
    type: 'file',
    name: `${name} manuals`,
  });
  const bytes = Buffer.from(HELP_PAGE, 'utf8');
  const ticket = await call<{
    document_id: string;
    upload_url: string;
    upload_fields: Record<string, string>;
  }>(base, key, 'POST', `/api/v1/data-sources/${source.id}/files`, {
    filename: 'help.md',
    size_bytes: bytes.length,
  });
  const form = new FormData();
  for (const [field, value] of Object.entries(ticket.upload_fields)) {
    form.append(field, value);
  }
  form.append('file', new Blob([new Uint8Array(bytes)]), 'help.md');
  const sent = await fetch(ticket.upload_url, { method: 'POST', body: form });
  if (sent.status !== 204) throw new Error(`upload: ${sent.status} ${await sent.text()}`);
  const deadline = Date.now() + 20_000;
  for (;;) {
    const file = await call<{ status: string }>(
      base,
      key,
      'GET',
      `/api/v1/data-sources/${source.id}/files/${ticket.document_id}`,
    );
    if (file.status === 'indexed') break;
    if (file.status === 'failed' || Date.now() > deadline) {
      throw new Error(`the help page was not indexed: ${JSON.stringify(file)}`);
    }
    await new Promise((done) => setTimeout(done, 200));
  }
  const agent = await call<{ id: string }>(base, key, 'POST', '/api/v1/agents', {
    name,
    data_source_ids: [source.id],
  });
  return { id: agent.id, name };
}

/** Asks a question; returns the interaction's id. */
export async function ask(base: string, key: string, agentId: string, query: string) {
  const answer = await call<{ metadata: { interaction_id: string } }>(
    base,
    key,
    'POST',
    '/api/v1/query',
    { agent_id: agentId, query },
  );
  return answer.metadata.interaction_id;
}

export async function giveFeedback(
  base: string,
  key: string,
  interactionId: string,
  feedback: 'positive' | 'negative',
  comment?: string,
): Promise<void> {
  await call(base, key, 'POST', `/api/v1/interactions/${interactionId}/feedback`, {
    feedback,
    ...(comment ? { comment } : {}),
  });
}
