/**
 * What a question asks for, read from its words alone: the offline answerer
 * has no model to understand it, but the shape of a question says what kind
 * of passage answers it. "How do I…" is answered by a command or a code
 * block, "what's the flag for…" by an identifier, "how many…" by a number.
 */
import { analyze } from '../../../domain/retrieval/text-analysis';

export type QuestionFocus =
  /** "how do I…", "how to…": steps, a command, a code example. */
  | 'procedure'
  /** "what's the option / function / env var…": an identifier. */
  | 'name'
  /** "how many / how long / what's the default…": a number or a value. */
  | 'number'
  /** "does it…", "is there…", "can it…": a statement that settles it. */
  | 'yes-no'
  /** anything else: "what is…", "why…". */
  | 'explanation';

const PROCEDURE =
  /^(?:\W*)(?:how\s+(?:do|can|could|should|would|might|may|to)\b|how\s+(?:i|we|you)\b|(?:what(?:'s|\s+is)|whats)\s+the\s+(?:best\s+|right\s+|correct\s+|proper\s+|recommended\s+)?(?:way|command|steps?)\s+to\b|is\s+there\s+(?:a|any)\s+way\b|steps?\s+to\b|(?:i|we)\s+(?:want|need|would\s+like|wanna)\s+to\b|can\s+(?:i|we|you)\b|(?:show|tell)\s+me\s+how\b)/i;

const NAME =
  /\b(?:what|which|whats|what's)\b.*\b(?:function|method|command|option|flag|switch|setting|variable|env(?:ironment)?(?:\s+var(?:iable)?)?|key|parameter|param|argument|arg|class|module|package|file(?:name)?|directory|folder|path|header|field|property|attribute|hook|event|endpoint|api|call|directive|keyword|name|called|subcommand|plugin|extension|format|syntax|scheme)s?\b|\bwhat\s+(?:do|should)\s+(?:i|you|we)\s+(?:call|use|pass|set|type|run)\b|\bname\s+of\b|^\W*where\s+(?:is|are|does|do|did|can|should|will)\b/i;

const NUMBER =
  /\bhow\s+(?:many|much|long|big|large|often|old|fast|far|high|low)\b|\b(?:default|maximum|minimum|max|min|limit|timeout|port|size|version|number|count|ratio|rate|percentage|speed|length|interval|duration|capacity)\b/i;

/**
 * A question word that opens the question, or a question mark that ends it.
 * Inside an instruction a "when" or a "which" only qualifies it: "keep the
 * original file when gzipping" asks how, not when.
 */
const QUESTION_WORD =
  /^\W*(?:what|whats|why|which|who|when|where|explain|describe)\b|\b(?:meaning|difference)\b|\?\s*$/i;

const YES_NO =
  /^(?:\W*)(?:is|are|does|do|did|can|could|will|would|should|has|have|was|were|may|must)\b/i;

/**
 * The focus of `question`. A "how do I" question is a procedure even when it
 * mentions an option ("how do I set the timeout option"): the steps answer
 * it, and they name the option anyway.
 *
 * @example questionFocus('whats the curl flag to follow redirects') // 'name'
 */
export function questionFocus(question: string): QuestionFocus {
  const text = question.trim();
  if (PROCEDURE.test(text)) return 'procedure';
  if (NAME.test(text)) return 'name';
  if (YES_NO.test(text)) return 'yes-no';
  if (NUMBER.test(text)) return 'number';
  // Words typed without a question ("tar with zstd compression") ask how to do it.
  if (!QUESTION_WORD.test(text)) return 'procedure';
  return 'explanation';
}

/** The kind of name a question asks for, when it says: "which flag", "what env var", "the command to". */
export type NameKind = 'flag' | 'variable' | 'call' | 'command' | 'path';

const NAME_KINDS: ReadonlyArray<readonly [NameKind, RegExp, RegExp]> = [
  ['flag', /\b(?:flag|option|switch|argument|arg)s?\b/i, /^`?--?[A-Za-z][\w-]*/],
  [
    'variable',
    /\b(?:env(?:ironment)?\s+var(?:iable)?s?|envvars?)\b/i,
    /^`?\$?\{?[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b/,
  ],
  [
    'call',
    /\b(?:function|method|call|api)s?\b/i,
    /^`?[A-Za-z_$][\w$.]*\(|^`?[A-Za-z_$][\w$]*\.[A-Za-z_$][\w$]*`?$/,
  ],
  ['command', /\b(?:command|subcommand)s?\b/i, /^`[a-z][\w.-]*(?: [\w.=-]+)+`$/],
  [
    'path',
    /\b(?:file(?:name)?|directory|folder|path)s?\b/i,
    /^`?[^\s`]*\/[^\s`]*`?$|^`?[\w.-]+\.[a-z]{2,5}`?$/,
  ],
];

/**
 * The kind of name a "which…"/"what's the…" question asks for, if it says:
 * "which env var" wants `PIP_CONFIG_FILE`, "which command" `pip freeze`,
 * "what flag" `--insecure`. The first kind the question names counts.
 */
export function askedNameKind(question: string): NameKind | undefined {
  let found: { kind: NameKind; at: number } | undefined;
  for (const [kind, asks] of NAME_KINDS) {
    const at = question.search(asks);
    if (at >= 0 && (found === undefined || at < found.at)) found = { kind, at };
  }
  return found?.kind;
}

/** Whether `identifier` (as identifiersIn gives it) is a name of `kind`. */
export function isNameOfKind(identifier: string, kind: NameKind): boolean {
  return NAME_KINDS.find(([candidate]) => candidate === kind)?.[2].test(identifier) === true;
}

/**
 * Does the question compare things ("X vs Y", "difference between")? Only
 * then may an answer quote several documents side by side; otherwise one
 * document's account reads better than sentences stitched from several.
 */
export function comparesThings(question: string): boolean {
  return /\b(?:vs\.?|versus|differen(?:ce|t)|compare[sd]?|comparison|between|better|instead\s+of|or\s+should)\b/i.test(
    question,
  );
}

/**
 * Identifiers as documentation writes them: flags (`-L`, `--location`),
 * calls (`listen(`), dotted names (`app.listen`, `pip.conf`), environment
 * variables (`PIP_CONFIG_FILE`), snake_case and camelCase names, paths
 * (`~/.cache/pip`, `/etc/hosts`), shell variables (`$HOME`), `key=value`
 * settings, e-mail addresses and web addresses. Words of prose never match.
 */
const IDENTIFIER_PATTERNS: readonly RegExp[] = [
  /^--?[A-Za-z][\w-]*(?:=\S*)?$/,
  /^[A-Za-z_$][\w$.]*\(/,
  /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$/,
  /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$/,
  /^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$/,
  /^[a-z]+[A-Z][A-Za-z0-9]*$/,
  /^(?:~|\.{1,2})?\/[\w.~/-]+$/,
  /^\$\{?[A-Za-z_]/,
  /^[\w.-]+=[^=\s]+$/,
  /^`[^`]+`$/,
  /^<[\w-]+>$/,
  /^[\w.+-]+@[\w-]+(?:\.[\w-]+)+$/,
  /^https?:\/\/\S+$/,
];

const INLINE_CODE = /`[^`\n]+`/g;

const MANUAL_REFERENCE = /^[\w.-]+\(\d[a-z]*\)$/;

/** Abbreviations that look dotted but are prose. */
const DOTTED_PROSE = /^(?:e\.g|i\.e|etc|vs|cf|et\.al|a\.k\.a|u\.s)\.?$/i;

/** Punctuation around a token that is not part of it (quotes, brackets, a sentence's full stop). */
const SURROUNDING = /^[("'“‘[{<]+|[)"'”’\]}>,;:!?.]+$/g;

/** The identifiers in `text`, as written. */
export function identifiersIn(text: string): string[] {
  const found: string[] = [];
  // Markdown's inline code names an identifier whatever it holds (`pip cache dir`).
  for (const [code] of text.matchAll(INLINE_CODE)) found.push(code);
  for (const raw of text.replace(INLINE_CODE, ' ').split(/\s+/)) {
    const token = balanced(raw, raw.replace(SURROUNDING, ''));
    if (token.length < 2 || DOTTED_PROSE.test(token) || /^\d+(?:[.,]\d+)*$/.test(token)) continue;
    // "zstd(1)" refers to a manual page; it names no call.
    if (MANUAL_REFERENCE.test(token)) continue;
    if (IDENTIFIER_PATTERNS.some((pattern) => pattern.test(token))) found.push(token);
  }
  return found;
}

/** The token with a closing parenthesis back that trimming took from a call (`listen(3000)`). */
function balanced(raw: string, token: string): string {
  if (!token.includes('(')) return token;
  const opened = token.split('(').length - token.split(')').length;
  return opened > 0 && raw.includes(`${token})`) ? `${token})` : token;
}

/** Does `text` state a number or a quantity (digits, a size, a duration)? */
export function hasNumber(text: string): boolean {
  return /\d/.test(text);
}

/**
 * Words so common in questions and documentation that matching one says
 * little: a passage that shares only "use" and "file" with the question is
 * not about it. They still count, at a fraction of a rarer word's weight;
 * a word outside this that no offered passage holds is what makes the
 * answerer say it found nothing.
 */
export const COMMON_WORDS: ReadonlySet<string> = new Set(
  analyze(
    'able after again against all allow allowed allows already also always another ' +
      'anything anyway around ask available away back bad basic because before begin best better big ' +
      'both bring call called case choose come common ' +
      'complete correct current currently different directly does done doing ' +
      'during each easy either else end enough ever every example exist exists fail ' +
      'failed far few find first fix following found free full general getting go goes ' +
      'going good great happen happens help instead issue issues kind last later least let like ' +
      'little look looking lot made main make makes making many mean means might ' +
      'most new next normal normally now number off often old once one only ' +
      'order other others out over own part people place point possible probably problem problems ' +
      'put quick quickly rather really reason right same say second see set sets setting ' +
      'several should simple since small so something sometimes still stuff ' +
      'sure take thing things think through time times try trying two type under until ' +
      'up use used useful uses using usually value values way ways well whether ' +
      'while without work working works yes',
  ),
);

/** The words of `question` as the user wrote them (their case kept), for saying what was searched. */
export function questionKeywords(question: string, filler: ReadonlySet<string>): string[] {
  const seen = new Set<string>();
  const kept: string[] = [];
  for (const word of question.match(/[\p{L}\p{N}_]+(?:['’.+#-][\p{L}\p{N}_]+)*/gu) ?? []) {
    const [term] = analyze(word);
    if (term === undefined || filler.has(term) || seen.has(term)) continue;
    seen.add(term);
    kept.push(word);
  }
  return kept;
}
