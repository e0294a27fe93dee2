/**
 * Hard bounds on what one uploaded file may make the parsers do (issue 13,
 * P95). Every bound is checked before or while the work it bounds is done
 * (a zip entry is inflated against a byte budget, a PDF's pages are counted
 * before they are read), never after the memory is spent, so a hostile file
 * ends as a refused file with its reason, not as a process out of memory.
 */

const MiB = 1024 * 1024;

export interface ParseLimits {
  /**
   * Characters of text one file may yield, all sections together: the most a
   * plain-text file of the largest allowed upload (50 MiB) can hold. A
   * DOCX or PDF is compressed and could yield far more.
   */
  readonly maxTextChars: number;
  /** Entries in a zip package (DOCX): Word writes 10 to a few hundred. */
  readonly maxZipEntries: number;
  /**
   * Bytes all entries of a zip package together may inflate to, counted as
   * they are inflated (a central directory may lie about sizes); a 50 MiB
   * DOCX of photographs, which do not compress, stays well under.
   */
  readonly maxZipInflatedBytes: number;
  /**
   * Bytes one XML part of a package (`word/document.xml`, …) may inflate to:
   * the DOCX reader builds a tree of every element, about 15 times the part
   * (10 MiB of document XML: 150 MB more at peak, measured), so 32 MiB stays
   * within the parsing process's 1,024 MB.
   */
  readonly maxZipXmlPartBytes: number;
  /** Pages of a PDF (Azure's and Google's document readers stop at 2,000). */
  readonly maxPdfPages: number;
  /** Records of a CSV, the header included (Excel's sheet has 1,048,576 rows). */
  readonly maxCsvRows: number;
  /** Characters of one CSV cell (30 times Excel's 32,767; long text columns are common in exports). */
  readonly maxCsvCellChars: number;
  /** Columns of one CSV record (Excel's 16,384). */
  readonly maxCsvColumns: number;
}

/** The limits every uploaded file is parsed under, in the cloud and on one machine alike. */
export const PARSE_LIMITS: ParseLimits = {
  maxTextChars: 50 * MiB,
  maxZipEntries: 10_000,
  maxZipInflatedBytes: 256 * MiB,
  maxZipXmlPartBytes: 32 * MiB,
  maxPdfPages: 2_000,
  maxCsvRows: 1_000_000,
  maxCsvCellChars: 1 * MiB,
  maxCsvColumns: 16_384,
};

/**
 * A file over one of the {@link ParseLimits}: refused with a reason that
 * names the limit, safe to store on the file's record and show.
 */
export class FileLimitExceededError extends Error {
  readonly code = 'file_limit_exceeded';

  constructor(
    readonly filename: string,
    /** The {@link ParseLimits} key that was exceeded. */
    readonly limit: keyof ParseLimits,
    message: string,
  ) {
    super(`refused "${filename}": ${message}`);
    this.name = new.target.name;
  }
}

/** Counts the text a file yields as it is extracted, and refuses it once past `maxTextChars`. */
export class TextBudget {
  #used = 0;

  constructor(
    private readonly filename: string,
    private readonly maxChars: number,
  ) {}

  /** Adds `chars` characters; throws once the total passes the limit. */
  spend(chars: number): void {
    this.#used += chars;
    if (this.#used > this.maxChars) {
      throw new FileLimitExceededError(
        this.filename,
        'maxTextChars',
        `it holds more than ${formatCount(this.maxChars)} characters of text (the limit per file)`,
      );
    }
  }
}

/** `52428800` → `52,428,800`; byte counts of whole MiB → `50 MiB`. */
export function formatCount(value: number): string {
  return value.toLocaleString('en-US');
}

export function formatBytes(bytes: number): string {
  return bytes % MiB === 0 ? `${bytes / MiB} MiB` : `${formatCount(bytes)} bytes`;
}
