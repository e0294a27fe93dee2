/**
 * A domain as stored and compared: lower case, no trailing dot, ASCII
 * (IDNA) form, at least two labels of letters, digits and hyphens.
 * Returns null for anything else (an IP address, a single label, a URL).
 */
export function normalizeDomain(input: string): string | null {
  const trimmed = input.trim().toLowerCase().replace(/\.$/, '');
  // Only a host name: no scheme, port, path, credentials or spaces for URL parsing to absorb.
  if (trimmed === '' || /[/:@?#\\\s%[\]]/.test(trimmed)) return null;
  let ascii: string;
  try {
    ascii = new URL(`http://${trimmed}`).hostname; // IDNA: Unicode labels become punycode
  } catch {
    return null;
  }
  if (ascii.length > 253) return null;
  const labels = ascii.split('.');
  if (labels.length < 2) return null;
  const label = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
  if (!labels.every((part) => label.test(part))) return null;
  // The top-level label is never all digits: that is an IPv4 address.
  if (/^\d+$/.test(labels[labels.length - 1] ?? '')) return null;
  return ascii;
}
