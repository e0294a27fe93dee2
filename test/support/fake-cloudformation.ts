import { createServer, type Server } from 'node:http';
import { listen } from '../../lib/local/listen';

export interface FakeStack {
  readonly name: string;
  readonly outputs: Record<string, string>;
  readonly tags: Record<string, string>;
}

export interface FakeCloudFormation {
  readonly endpoint: string;
  /** Form bodies received, for asserting what the SDK asked. */
  readonly requests: URLSearchParams[];
  /** Answer every request with 403 AccessDenied from now on. */
  denyAll(): void;
  end(): Promise<void>;
}

const NAMESPACE = 'http://cloudformation.amazonaws.com/doc/2010-05-15/';
const xmlText = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * The DescribeStacks response, written from AWS's documented format
 * (CloudFormation API Reference, DescribeStacks, "Examples": the query
 * protocol's `DescribeStacksResponse` / `DescribeStacksResult` / `Stacks` /
 * `member` XML, with `Outputs` and `Tags` members as in the `Stack` and
 * `Output` / `Tag` data types).
 */
function describeStacksXml(stack: FakeStack): string {
  const members = (entries: Record<string, string>, key: string, value: string) =>
    Object.entries(entries)
      .map(
        ([k, v]) =>
          `<member><${key}>${xmlText(k)}</${key}><${value}>${xmlText(v)}</${value}></member>`,
      )
      .join('');
  return `<DescribeStacksResponse xmlns="${NAMESPACE}">
  <DescribeStacksResult>
    <Stacks>
      <member>
        <StackName>${xmlText(stack.name)}</StackName>
        <StackId>arn:aws:cloudformation:eu-west-1:123456789012:stack/${xmlText(stack.name)}/aaf549a0-a413-11df-adb3-5081b3858e83</StackId>
        <CreationTime>2026-01-05T10:00:00.000Z</CreationTime>
        <StackStatus>CREATE_COMPLETE</StackStatus>
        <DisableRollback>false</DisableRollback>
        <Outputs>${members(stack.outputs, 'OutputKey', 'OutputValue')}</Outputs>
        <Tags>${members(stack.tags, 'Key', 'Value')}</Tags>
      </member>
    </Stacks>
  </DescribeStacksResult>
  <ResponseMetadata><RequestId>b9b4b068-3a41-11e5-94eb-example</RequestId></ResponseMetadata>
</DescribeStacksResponse>`;
}

/** The query protocol's error document (`ErrorResponse` / `Error` with `Type`, `Code`, `Message`). */
function errorXml(code: string, message: string): string {
  return `<ErrorResponse xmlns="${NAMESPACE}">
  <Error><Type>Sender</Type><Code>${code}</Code><Message>${xmlText(message)}</Message></Error>
  <RequestId>c2d1e7a4-0000-4000-8000-example</RequestId>
</ErrorResponse>`;
}

/** A loopback CloudFormation that knows `stacks` and answers DescribeStacks only. */
export async function startFakeCloudFormation(
  stacks: readonly FakeStack[],
): Promise<FakeCloudFormation> {
  const requests: URLSearchParams[] = [];
  let denied = false;
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    request.on('end', () => {
      const form = new URLSearchParams(body);
      requests.push(form);
      const reply = (status: number, xml: string) => {
        response.writeHead(status, { 'content-type': 'text/xml' });
        response.end(xml);
      };
      if (denied) {
        return reply(
          403,
          errorXml(
            'AccessDenied',
            `User: arn:aws:iam::123456789012:user/operator is not authorized to perform: cloudformation:DescribeStacks on resource: ${form.get('StackName')} because no identity-based policy allows the cloudformation:DescribeStacks action`,
          ),
        );
      }
      if (form.get('Action') !== 'DescribeStacks') {
        return reply(400, errorXml('InvalidAction', `Unsupported here: ${form.get('Action')}`));
      }
      const stack = stacks.find((s) => s.name === form.get('StackName'));
      if (!stack) {
        return reply(
          400,
          errorXml('ValidationError', `Stack with id ${form.get('StackName')} does not exist`),
        );
      }
      return reply(200, describeStacksXml(stack));
    });
  });
  const { port } = await listen(server, 0, '127.0.0.1');
  return {
    endpoint: `http://127.0.0.1:${port}`,
    requests,
    denyAll: () => {
      denied = true;
    },
    end: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
