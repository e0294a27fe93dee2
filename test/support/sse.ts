/** D19: a `text/event-stream` body read back into its events. */
export interface StreamEvent {
  readonly event: string;
  /** The `data:` line parsed as JSON (D19: always an object). */
  readonly data: Record<string, any>;
}

/**
 * Parses a complete event stream. Comment lines (`: keep-alive`) are
 * skipped; an event whose data is not a JSON object fails the test.
 */
export function parseEventStream(text: string): StreamEvent[] {
  const events: StreamEvent[] = [];
  for (const block of text.split(/\n\n/)) {
    const lines = block.split('\n').filter((line) => line !== '' && !line.startsWith(':'));
    if (lines.length === 0) continue;
    let event = 'message';
    const data: string[] = [];
    for (const line of lines) {
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event') event = value;
      else if (field === 'data') data.push(value);
      else throw new Error(`unexpected event-stream field ${JSON.stringify(field)}`);
    }
    const parsed: unknown = JSON.parse(data.join('\n'));
    expect(parsed).toEqual(expect.any(Object));
    expect(Array.isArray(parsed)).toBe(false);
    events.push({ event, data: parsed as Record<string, any> });
  }
  return events;
}
