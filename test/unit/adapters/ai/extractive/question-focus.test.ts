import {
  askedNameKind,
  comparesThings,
  identifiersIn,
  isNameOfKind,
  questionFocus,
} from '../../../../../layers/core/adapters/ai/extractive/question-focus';

describe('Function: questionFocus', () => {
  it.each([
    ['how do i undo my last commit but keep the changes', 'procedure'],
    ['How to follow redirects with curl?', 'procedure'],
    ["what's the best way to clear the cache", 'procedure'],
    ['whats the curl flag to follow redirects', 'name'],
    ['which environment variable points pip at a config file', 'name'],
    ['how long does ssh wait before giving up', 'number'],
    ['what is the default port', 'number'],
    ['does tar keep permissions by default?', 'yes-no'],
    ['is the git protocol recommended?', 'yes-no'],
    ['why is my build slow', 'explanation'],
    ['where does pip keep its cache on linux?', 'name'],
    // A question word inside an instruction only qualifies it.
    ['keep the original file when gzipping', 'procedure'],
    ['list the files which changed', 'procedure'],
  ] as const)('reads %j as a %s question', (question, focus) => {
    expect(questionFocus(question)).toBe(focus);
  });
});

describe('Function: identifiersIn', () => {
  it('finds flags, calls, dotted names, environment variables, paths and inline code', () => {
    expect(
      identifiersIn(
        'Pass -L or --location, call app.listen(3000), set PIP_CONFIG_FILE, edit ~/.config/pip/pip.conf, run `pip cache dir`.',
      ),
    ).toEqual([
      '`pip cache dir`',
      '-L',
      '--location',
      'app.listen(3000)',
      'PIP_CONFIG_FILE',
      '~/.config/pip/pip.conf',
    ]);
  });

  it('finds e-mail and web addresses, but not manual page references', () => {
    expect(
      identifiersIn(
        'Send bug reports to <bug-make@gnu.org> or https://savannah.gnu.org/bugs; see zstd(1).',
      ),
    ).toEqual(['bug-make@gnu.org', 'https://savannah.gnu.org/bugs']);
  });

  it('finds none in prose, abbreviations or numbers', () => {
    expect(identifiersIn('Refunds, e.g. for 1,000 orders, take 2.5 days (i.e. soon).')).toEqual([]);
  });
});

describe('Function: comparesThings', () => {
  it('tells a comparison from a plain question', () => {
    expect(comparesThings('gzip vs zstd speed')).toBe(true);
    expect(comparesThings('what is the difference between reset and revert')).toBe(true);
    expect(comparesThings('how do I reset a branch')).toBe(false);
  });
});

describe('Function: askedNameKind', () => {
  it.each([
    ['which env var points pip at a config file', 'variable'],
    ['whats the curl flag to follow redirects', 'flag'],
    ['which command writes a requirements file', 'command'],
    ['what method closes the interface', 'call'],
    ['which folder does pip keep its cache in', 'path'],
    ['what is the default port', undefined],
  ] as const)('reads %j as asking for a %s', (question, kind) => {
    expect(askedNameKind(question)).toBe(kind);
  });
});

describe('Function: isNameOfKind', () => {
  it.each([
    ['--insecure', 'flag'],
    ['`PIP_CONFIG_FILE`', 'variable'],
    ['$HTTPS_PROXY', 'variable'],
    ['rl.close()', 'call'],
    ['`pip freeze`', 'command'],
    ['`$HOME/.config/pip/pip.conf`', 'path'],
    ['pip.conf', 'path'],
  ] as const)('knows %j as a %s', (identifier, kind) => {
    expect(isNameOfKind(identifier, kind)).toBe(true);
  });

  it('tells one kind from another', () => {
    expect(isNameOfKind('--insecure', 'variable')).toBe(false);
    expect(isNameOfKind('`pip freeze`', 'flag')).toBe(false);
  });
});
