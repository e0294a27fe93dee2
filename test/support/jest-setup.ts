// Quiet, deterministic test runs: no function logs, no Node-version nag from the AWS SDK on Node 20.
process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
