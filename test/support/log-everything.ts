/**
 * Imported first by suites that scan what the service writes (D33: secrets
 * are never logged): the loggers read their level when they are built, at
 * import, so it must be set before any function module loads. jest-setup.ts
 * silences them for every other suite.
 */
process.env.POWERTOOLS_LOG_LEVEL = 'DEBUG';
