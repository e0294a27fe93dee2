// Quiet, deterministic test runs: no function logs, no Node-version nag from the AWS SDK on Node 20.
// TEST_LOG_LEVEL=ERROR (or DEBUG…) shows the functions' logs, e.g. the error behind an unexpected 500.
process.env.POWERTOOLS_LOG_LEVEL = process.env.TEST_LOG_LEVEL ?? 'SILENT';
// Metrics go to CloudWatch through the function's log in the cloud; a test has neither.
process.env.POWERTOOLS_METRICS_DISABLED = 'true';
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
