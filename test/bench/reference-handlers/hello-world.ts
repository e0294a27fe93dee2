/**
 * The cold-start bench's floor: a handler that imports nothing. Its init time
 * is what Node.js costs to load any bundle at all.
 */
export const handler = async () => ({ statusCode: 200, body: 'ok' });
