import { InvalidRequestError } from './errors';

/**
 * The file types a `file` data source accepts, and how an upload's type
 * is told from its name and declared content type. Pure, so the upload use
 * case can refuse a type before anything is stored, and the ingestion parser
 * dispatches by the same rule.
 */
export const FILE_TYPES = ['pdf', 'docx', 'html', 'markdown', 'text', 'csv'] as const;
export type FileType = (typeof FILE_TYPES)[number];

/** How each type is named to people, in the upload rules' order. */
export const FILE_TYPE_NAMES: Readonly<Record<FileType, string>> = {
  pdf: 'PDF',
  docx: 'DOCX',
  html: 'HTML',
  markdown: 'Markdown',
  text: 'plain text',
  csv: 'CSV',
};

/** "PDF, DOCX, HTML, Markdown, plain text, CSV", for error messages. */
export const ACCEPTED_FILE_TYPES_TEXT = FILE_TYPES.map((type) => FILE_TYPE_NAMES[type]).join(', ');

const BY_EXTENSION: Readonly<Record<string, FileType>> = {
  pdf: 'pdf',
  docx: 'docx',
  html: 'html',
  htm: 'html',
  xhtml: 'html',
  md: 'markdown',
  markdown: 'markdown',
  mdown: 'markdown',
  mkd: 'markdown',
  txt: 'text',
  text: 'text',
  csv: 'csv',
};

const BY_MEDIA_TYPE: Readonly<Record<string, FileType>> = {
  'application/pdf': 'pdf',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'text/html': 'html',
  'application/xhtml+xml': 'html',
  'text/markdown': 'markdown',
  'text/x-markdown': 'markdown',
  'text/plain': 'text',
  'text/csv': 'csv',
  'application/csv': 'csv',
};

/**
 * The type of an upload: by the file name's extension first (what people
 * choose and see), else by the declared content type (browsers send
 * `application/octet-stream` for anything they do not know, so it is only a
 * hint). `undefined` when neither names an accepted type.
 *
 * @example
 * detectFileType('Handbook.PDF'); // 'pdf'
 * detectFileType('notes', 'text/markdown; charset=utf-8'); // 'markdown'
 */
export function detectFileType(filename: string, contentType?: string): FileType | undefined {
  const dot = filename.lastIndexOf('.');
  const extension = dot > 0 ? filename.slice(dot + 1).toLowerCase() : '';
  const byExtension = BY_EXTENSION[extension];
  if (byExtension) return byExtension;
  const mediaType = contentType?.split(';', 1)[0]?.trim().toLowerCase() ?? '';
  return BY_MEDIA_TYPE[mediaType];
}

/**
 * What a stored file of each type is served as, for a browser to open it in
 * place: Markdown and CSV as plain text, which browsers show (they save
 * `text/markdown` and `text/csv` instead); the name keeps the extension. Text
 * is assumed UTF-8 (what the parsers read it as without a declared charset),
 * so a README with accents does not show as mojibake.
 */
const SERVED_MEDIA_TYPES: Readonly<Record<FileType, string>> = {
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  html: 'text/html; charset=utf-8',
  markdown: 'text/plain; charset=utf-8',
  text: 'text/plain; charset=utf-8',
  csv: 'text/plain; charset=utf-8',
};

/**
 * The content type to serve an uploaded file with: its type's, keeping a
 * charset the upload declared; `application/octet-stream` for a file of no
 * accepted type (it was refused, but its bytes are still the user's).
 */
export function servedContentType(filename: string, declared: string | null): string {
  const type = detectFileType(filename, declared ?? undefined);
  if (!type) return 'application/octet-stream';
  const charset = /;\s*charset=([\w.:-]+)/i.exec(declared ?? '')?.[1];
  const served = SERVED_MEDIA_TYPES[type];
  return charset && served.includes('charset=')
    ? served.replace(/charset=.*$/, `charset=${charset}`)
    : served;
}

/**
 * A file that is none of the accepted types. An `InvalidRequestError`
 * (400 `invalid_request`) where it reaches a caller directly; during
 * ingestion its message is the document's error. The message names the
 * accepted types so it tells the user what to do.
 */
export class UnsupportedFileTypeError extends InvalidRequestError {
  constructor(
    readonly filename: string,
    readonly contentType: string | undefined,
  ) {
    super(`unsupported file type for "${filename}" (accepted: ${ACCEPTED_FILE_TYPES_TEXT})`, {
      filename,
      accepted_types: [...FILE_TYPES],
    });
  }
}
