/** The XML predefined entities and character references: all a SAML `<Issuer>` text may hold. */
const ENTITIES: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
};

/** A SAML Response this reader does not take apart; the sign-in is refused. */
export class UnreadableSamlResponseError extends Error {
  override readonly name = 'UnreadableSamlResponseError';
}

/**
 * The text of a SAML Response's own `<Issuer>`, or `null` when it has
 * none (SAML Core 3.2.2: optional, and the root's first child element when
 * present). Called on a response node-saml has already parsed and whose
 * assertion it verified, so only that one place of the document is read:
 * the XML declaration and comments before the root are skipped, the root
 * must be a `Response` (any prefix), and an `Issuer` right after it must hold
 * plain text (entity and character references decoded). Anything else
 * there (CDATA, a DOCTYPE, markup inside the Issuer) is refused rather than
 * guessed at. A few lines instead of an XML parser: the `sso` bundle's size
 * ceiling has no room for one, and node-saml keeps its own to itself.
 *
 * @example
 * responseIssuerOf('<samlp:Response …><saml:Issuer>https://idp.example</saml:Issuer>…'); // 'https://idp.example'
 */
export function responseIssuerOf(xml: string): string | null {
  const reader = new Reader(xml);
  reader.skipMisc();
  const root = reader.startTag();
  if (localName(root.name) !== 'Response' || root.selfClosing) {
    throw new UnreadableSamlResponseError('the document is not a SAML Response');
  }
  reader.skipMisc();
  if (reader.at('</')) return null;
  // Element-only content (SAML Core 3.2.2): text before the first child is not a Response.
  if (!reader.at('<')) throw new UnreadableSamlResponseError('text inside the Response');
  const child = reader.startTag();
  if (localName(child.name) !== 'Issuer') return null;
  if (child.selfClosing) return '';
  return decode(reader.textUntilEndOf(child.name));
}

function localName(qualified: string): string {
  return qualified.slice(qualified.indexOf(':') + 1);
}

function decode(text: string): string {
  return text.replace(/&([^;]*);|&/g, (whole, reference: string | undefined) => {
    if (reference === undefined) throw new UnreadableSamlResponseError('a bare & in the Issuer');
    const named = ENTITIES[reference];
    if (named !== undefined) return named;
    const code =
      /^#x([0-9a-fA-F]{1,6})$/.exec(reference)?.[1] ?? /^#([0-9]{1,7})$/.exec(reference)?.[1];
    const point =
      code === undefined ? Number.NaN : Number.parseInt(code, reference.startsWith('#x') ? 16 : 10);
    if (!Number.isInteger(point) || point > 0x10ffff) {
      throw new UnreadableSamlResponseError(`an unknown reference ${whole} in the Issuer`);
    }
    return String.fromCodePoint(point);
  });
}

/** A cursor over the document's text, for the few constructs read above. */
class Reader {
  #position = 0;

  constructor(private readonly xml: string) {}

  at(prefix: string): boolean {
    return this.xml.startsWith(prefix, this.#position);
  }

  /** Whitespace, the XML declaration and processing instructions, comments. */
  skipMisc(): void {
    for (;;) {
      this.#match(/\s*/y);
      if (this.at('<?')) this.#skipPast('?>');
      else if (this.at('<!--')) this.#skipPast('-->');
      else return;
    }
  }

  /** `<name attr="…" …>` or `<name …/>`, attribute values skipped whole (they may hold `>`). */
  startTag(): { readonly name: string; readonly selfClosing: boolean } {
    const name = this.#match(/<([^\s/>!?]+)/y)?.[1];
    if (name === undefined) throw new UnreadableSamlResponseError('expected an element');
    for (;;) {
      this.#match(/\s*/y);
      if (this.#match(/\/>/y)) return { name, selfClosing: true };
      if (this.#match(/>/y)) return { name, selfClosing: false };
      if (!this.#match(/[^\s=/>]+\s*=\s*("[^"]*"|'[^']*')/y)) {
        throw new UnreadableSamlResponseError(`unreadable attributes on ${name}`);
      }
    }
  }

  /** The text up to `</name>`; markup inside (CDATA, comments, elements) is refused. */
  textUntilEndOf(name: string): string {
    const end = this.xml.indexOf(`</${name}`, this.#position);
    if (end < 0) throw new UnreadableSamlResponseError(`${name} is not closed`);
    const text = this.xml.slice(this.#position, end);
    if (text.includes('<')) throw new UnreadableSamlResponseError(`markup inside ${name}`);
    this.#position = end + `</${name}`.length;
    if (!this.#match(/\s*>/y)) {
      throw new UnreadableSamlResponseError(`${name} is not closed`);
    }
    return text;
  }

  #skipPast(terminator: string): void {
    const end = this.xml.indexOf(terminator, this.#position);
    if (end < 0) throw new UnreadableSamlResponseError(`unterminated ${terminator}`);
    this.#position = end + terminator.length;
  }

  #match(pattern: RegExp): RegExpExecArray | null {
    pattern.lastIndex = this.#position;
    const found = pattern.exec(this.xml);
    if (found) this.#position = pattern.lastIndex;
    return found;
  }
}
