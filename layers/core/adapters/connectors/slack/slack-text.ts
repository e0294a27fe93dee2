/**
 * Slack's message text as people read it: Slack's markup of
 * mentions, channel links, special mentions and links
 * (`<@U123>`, `<#C123|general>`, `<!here>`, `<https://x|label>`) and its
 * three escaped characters, turned into plain text.
 */
export function plainText(text: string, userName: (id: string) => string): string {
  return text
    .replace(/<([^<>]*)>/g, (_whole, inner: string) => {
      const [target = '', label] = splitLabel(inner);
      if (target.startsWith('@')) return `@${label ?? userName(target.slice(1))}`;
      if (target.startsWith('#')) return `#${label ?? target.slice(1)}`;
      if (target.startsWith('!subteam^')) return label ?? '@group';
      if (target.startsWith('!date^')) return label ?? '';
      if (target.startsWith('!')) return `@${label ?? target.slice(1)}`;
      if (target.startsWith('mailto:')) return label ?? target.slice('mailto:'.length);
      return label && label !== target ? `${label} (${target})` : target;
    })
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

function splitLabel(inner: string): [string, string | undefined] {
  const bar = inner.indexOf('|');
  return bar < 0 ? [inner, undefined] : [inner.slice(0, bar), inner.slice(bar + 1)];
}

/** The user ids a text mentions (`<@U123>`), to look their names up first. */
export function mentionedUsers(text: string): string[] {
  return [...text.matchAll(/<@([A-Z0-9]+)(?:\|[^>]*)?>/g)].map((match) => match[1] ?? '');
}

/**
 * Orders Slack timestamps (`"1512085950.000216"`: seconds, then a counter
 * unique within the channel) without floating-point rounding.
 */
export function compareTs(a: string, b: string): number {
  const [aSeconds = '0', aFraction = ''] = a.split('.');
  const [bSeconds = '0', bFraction = ''] = b.split('.');
  const seconds = BigInt(aSeconds) - BigInt(bSeconds);
  if (seconds !== 0n) return seconds < 0n ? -1 : 1;
  const fa = aFraction.padEnd(6, '0');
  const fb = bFraction.padEnd(6, '0');
  return fa === fb ? 0 : fa < fb ? -1 : 1;
}

export const isSlackTs = (value: unknown): value is string =>
  typeof value === 'string' && /^\d{1,12}(\.\d{1,8})?$/.test(value);

/** The latest of some timestamps (ignoring absent ones). */
export function latestTs(...values: (string | undefined)[]): string {
  let latest = '0';
  for (const value of values)
    if (value !== undefined && compareTs(value, latest) > 0) latest = value;
  return latest;
}

/** `1358546515.000008` → `p1358546515000008`, the message part of a permalink. */
export const permalinkPart = (ts: string) => `p${ts.replace('.', '')}`;

/** A timestamp as a UTC minute, for the thread's text (`2024-05-01 14:03 UTC`). */
export function tsDate(ts: string): string {
  const seconds = Number(ts.split('.')[0]);
  return `${new Date(seconds * 1000).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}
