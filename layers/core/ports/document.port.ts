/** A source document after parsing, before chunking: title, address, and text by section. */
export interface ParsedDocument {
  readonly title: string;
  /** The page or file address, if it has one. */
  readonly url: string | null;
  readonly sections: readonly ParsedSection[];
}

export interface ParsedSection {
  /** Headings above this text, outermost first (empty before the first heading). */
  readonly headingPath: readonly string[];
  /** Paragraphs of plain text, in order. */
  readonly paragraphs: readonly string[];
}
