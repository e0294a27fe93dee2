/**
 * Bundled as a function is (lib/constructs/function-bundle.ts) and run by
 * plain `node` from its bundle directory: drives each adapter whose package
 * is loaded on first use (P209) through one real call, so the `require()`
 * esbuild writes for its `import()` must find the package shipped beside
 * `index.js` and read the exports the adapter uses. Prints what each call
 * returned as one JSON line.
 */
import { randomBytes } from 'node:crypto';
import { AnthropicAnswerer } from '../../../layers/core/adapters/ai/anthropic-answerer';
import { BedrockEmbedder } from '../../../layers/core/adapters/ai/bedrock-embedder';
import { OpenAiAnswerer } from '../../../layers/core/adapters/ai/openai-answerer';
import { EnvelopeSecretSealer } from '../../../layers/core/adapters/crypto/envelope-secret-sealer';
import { webhookPolicy } from '../../../layers/core/adapters/net/outbound-policy';
import { parseFile } from '../../../layers/core/adapters/parsing/file-parsers';
import { parseSitemap } from '../../../layers/core/adapters/parsing/sitemap';
import { NodeSamlServiceProvider } from '../../../layers/core/adapters/sso/node-saml-service-provider';
import { XmlSamlMetadataReader } from '../../../layers/core/adapters/sso/xml-saml-metadata-reader';
import { countTokens } from '../../../layers/core/domain/retrieval/tokens';

async function main(): Promise<void> {
  const sealer = new EnvelopeSecretSealer({ localMasterKey: randomBytes(32) });
  const context = { org_id: 'org_probe', purpose: 'probe' };
  const opened = await sealer.open(await sealer.seal('sealed on first use', context), context);

  const answerer = new AnthropicAnswerer({
    apiKey: 'sk-ant-probe',
    baseURL: process.env.PROBE_ANTHROPIC_URL ?? '',
  });
  let answered = '';
  for await (const event of answerer.answer({
    model: 'claude-sonnet-4-5',
    systemPrompt: null,
    question: 'How long do refunds take?',
    history: [],
    sources: [],
    temperature: 0,
    maxTokens: 256,
  })) {
    if (event.type === 'done') answered = event.result.model;
  }

  // Issue 33: the OpenAI SDK, loaded at the first answer with an OpenAI model.
  let answeredByOpenAi = '';
  for await (const event of new OpenAiAnswerer({
    apiKey: 'sk-probe',
    baseURL: process.env.PROBE_OPENAI_URL ?? '',
  }).answer({
    model: 'gpt-4o-mini',
    systemPrompt: null,
    question: 'How long do refunds take?',
    history: [],
    sources: [
      {
        number: 1,
        chunk_id: 'chunk_probe',
        document_title: 'Refunds',
        document_url: null,
        text: 'Refunds take 30 days.',
        score: 1,
      },
    ],
    temperature: 0,
    maxTokens: 256,
  })) {
    if (event.type === 'done') answeredByOpenAi = event.result.model;
  }

  const saml = new NodeSamlServiceProvider();
  const authorization = await saml.authorization(
    {
      spEntityId: 'https://svc.example/saml/org_probe',
      acsUrl: 'https://svc.example/api/v1/auth/sso/saml/acs',
      idpEntityId: 'https://idp.example',
      idpSsoUrl: 'https://idp.example/sso',
      idpSsoBinding: 'redirect',
      idpCertificates: [process.env.PROBE_IDP_CERT ?? ''],
    },
    'id_probe_request',
    'relay-probe',
  );

  const authorizationUrl =
    authorization.binding === 'redirect' ? new URL(authorization.location).origin : '';

  // P272: xmldom parses, xml-crypto checks the signature.
  const metadata = await new XmlSamlMetadataReader(
    webhookPolicy({ allowPrivateAddresses: false }),
  ).read(process.env.PROBE_IDP_METADATA ?? '', {
    now: new Date(),
    signingCertificate: process.env.PROBE_IDP_CERT ?? '',
  });

  // Issue 32: the Bedrock client (the runtime's SDK) with the HTTP/1.1 handler shipped beside index.js.
  const [vector = []] = await new BedrockEmbedder({
    region: 'us-east-1',
    endpoint: process.env.PROBE_BEDROCK_URL ?? '',
    dimensions: 256,
    maxAttempts: 1,
  }).embed(['Read on first use']);

  const docx = await parseFile(Buffer.from(process.env.PROBE_DOCX ?? '', 'base64'), 'probe.docx');
  // Issue 33: every parser of the workers, and the tokenizer, shipped beside index.js.
  const pdf = await parseFile(Buffer.from(process.env.PROBE_PDF ?? '', 'base64'), 'probe.pdf');
  const markdown = await parseFile(Buffer.from('# Read\n\nOn *first* use.'), 'probe.md');
  const csv = await parseFile(Buffer.from('name,use\nparser,first\n'), 'probe.csv');
  const html = await parseFile(
    Buffer.from(
      '<html><body><main><h1>Read</h1><p>On first use &amp; once.</p></main></body></html>',
    ),
    'probe.html',
  );
  const sitemap = parseSitemap(
    Buffer.from(
      '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://docs.example/a</loc></url></urlset>',
    ),
  );

  process.stdout.write(
    `${JSON.stringify({
      opened,
      answered,
      answeredByOpenAi,
      authorizationUrl,
      metadataEntityId: metadata.entityId,
      docxText: docx.sections[0]?.paragraphs[0] ?? '',
      pdfText: pdf.sections[0]?.paragraphs[0] ?? '',
      markdown: [markdown.title, ...(markdown.sections[0]?.paragraphs ?? [])],
      csvRow: csv.sections[0]?.paragraphs[0] ?? '',
      htmlText: html.sections[0]?.paragraphs[0] ?? '',
      sitemap,
      tokens: countTokens('hello world'),
      bedrockDimensions: vector.length,
    })}\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
