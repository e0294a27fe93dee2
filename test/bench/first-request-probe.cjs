/**
 * Runs alone in a fresh Node.js process, as test/bench/init-probe.cjs does,
 * then goes one step further: after timing `require()` of the bundle (init),
 * it invokes the handler with the event given on the command line and times
 * that first invocation, then a second one. The difference is what a cold
 * start's first request pays once (lazy initialization on the request path,
 * the JIT's first run of it). Writes
 * `{ "initMs", "firstMs", "secondMs", "outcome" }` or `{ "error" }` to file
 * descriptor 3 and exits.
 */
const { writeSync } = require('node:fs');

const [bundle, eventJson] = process.argv.slice(2);

function context(requestId) {
  return {
    functionName: process.env.AWS_LAMBDA_FUNCTION_NAME,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:123456789012:function:${process.env.AWS_LAMBDA_FUNCTION_NAME}`,
    memoryLimitInMB: '1024',
    awsRequestId: requestId,
    logGroupName: '/aws/lambda/bench',
    logStreamName: 'bench',
    callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => 30_000,
    done() {},
    fail() {},
    succeed() {},
  };
}

/** The status code of an HTTP response, or what a queue handler reported. */
function outcomeOf(result) {
  if (result && typeof result.statusCode === 'number') return `HTTP ${result.statusCode}`;
  if (result && Array.isArray(result.batchItemFailures)) {
    return `${result.batchItemFailures.length} failed messages`;
  }
  return result === undefined ? 'done' : typeof result;
}

async function main() {
  const started = process.hrtime.bigint();
  const loaded = require(bundle);
  const initialized = process.hrtime.bigint();
  const first = await loaded.handler(JSON.parse(eventJson), context('bench-first'));
  const firstDone = process.hrtime.bigint();
  await loaded.handler(JSON.parse(eventJson), context('bench-second'));
  const secondDone = process.hrtime.bigint();
  return {
    initMs: Number(initialized - started) / 1e6,
    firstMs: Number(firstDone - initialized) / 1e6,
    secondMs: Number(secondDone - firstDone) / 1e6,
    outcome: outcomeOf(first),
  };
}

main()
  .then(
    (report) => writeSync(3, JSON.stringify(report)),
    (error) =>
      writeSync(
        3,
        JSON.stringify({ error: error instanceof Error ? error.message : String(error) }),
      ),
  )
  .finally(() => process.exit(0));
