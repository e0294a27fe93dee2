// Quiet, deterministic test runs: no function logs, no Node-version nag from the AWS SDK on Node 20.
process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
// Metrics go to CloudWatch through the function's log in the cloud; a test has neither.
process.env.POWERTOOLS_METRICS_DISABLED = 'true';
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
