/**
 * The answers eval's questions, written the way people type them into a
 * search box or a chat (short, informal, sometimes vague), over the Debian
 * documentation of test/eval/answer-documents.ts.
 *
 * Each answerable question names the document that answers it (its uploaded
 * file name) and the key phrases of which a right answer must contain at
 * least one (case and whitespace aside): the option, command, identifier,
 * number or sentence asked for. Every phrase must occur in its document; the
 * eval checks it and stops loudly when one does not.
 *
 * The split is the document's (answer-documents.ts): tuning on `tune`
 * questions never looks at a `holdout` or `holdout2` document. The last
 * questions are about nothing in the set; the honest answer to them is
 * "couldn't find".
 *
 * `holdout2` is a second held-out set over Node.js's API reference (library
 * documentation, like the READMEs of the issue's own held-out set). Its
 * questions were written from reading the documents only, the way developers
 * type them, before the answerer was ever run on them, and were not reworded
 * or swapped after seeing its answers. Nobody tunes on it: do not look at its
 * per-question results while changing the answerer, and do not edit its
 * questions to fit the system's answers (fix a question only when it is wrong
 * about its document).
 */
import type { AnswerSplit } from './answer-documents';

export const ANSWER_CATEGORIES = ['name', 'number', 'procedure', 'yes-no', 'explanation'] as const;
export type AnswerCategory = (typeof ANSWER_CATEGORIES)[number];

export interface AnswerQuestion {
  readonly id: string;
  readonly text: string;
  /** The file name of the document that answers it; null when nothing in the set does. */
  readonly document: string | null;
  /** At least one must be in a right answer; empty for a question nothing answers. */
  readonly phrases: readonly string[];
  readonly category: AnswerCategory;
  readonly split: AnswerSplit;
}

type Entry = readonly [text: string, phrases: readonly string[], category: AnswerCategory];

function about(document: string, split: AnswerSplit, entries: readonly Entry[]): AnswerQuestion[] {
  const stem = document.replace(/\.(md|txt)$/, '');
  return entries.map(([text, phrases, category], index) => ({
    id: `${stem}#${index + 1}`,
    text,
    document,
    phrases,
    category,
    split,
  }));
}

export const ANSWER_QUESTIONS: readonly AnswerQuestion[] = [
  // ——— tune ———
  ...about('pip-caching.md', 'tune', [
    ['where does pip keep its cache on linux?', ['~/.cache/pip'], 'name'],
    ["how do i turn off pip's cache", ['--no-cache-dir'], 'procedure'],
    ['command to wipe the whole pip cache', ['pip cache purge'], 'name'],
    ['how can i see which cache directory pip is using', ['pip cache dir'], 'procedure'],
    [
      'why does pip reuse a cached wheel without my C extension even though i can build it now',
      ['result of building a package from a package index is deterministic'],
      'explanation',
    ],
  ]),
  ...about('pip-configuration.md', 'tune', [
    ["where's the per-user pip config file on linux", ['.config/pip/pip.conf'], 'name'],
    ['which env var points pip at a specific config file?', ['PIP_CONFIG_FILE'], 'name'],
    ['can i set a different timeout just for pip freeze', ['[freeze]'], 'yes-no'],
    ['what format are pip config files written in', ['INI style'], 'explanation'],
  ]),
  ...about('pip-requirements-file-format.md', 'tune', [
    [
      'how do i include another requirements file from my requirements.txt',
      ['-r more_requirements.txt', '-r other-requirements.txt'],
      'procedure',
    ],
    [
      'can i use environment variables in requirements.txt?',
      ['API_TOKEN', 'POSIX format'],
      'yes-no',
    ],
    ['what encoding are requirements files read as', ['utf-8'], 'name'],
    [
      'does $VARIABLE syntax work in a requirements file',
      ['no support for other variable expansion syntaxes'],
      'yes-no',
    ],
  ]),
  ...about('pip-local-project-installs.md', 'tune', [
    ['how to install my project in editable mode', ['pip install -e'], 'procedure'],
    [
      'do i need to reinstall after changing code in an editable install?',
      ['project metadata'],
      'yes-no',
    ],
  ]),
  ...about('pyyaml-README.md', 'tune', [
    ['how do i safely load yaml i dont trust', ['yaml.safe_load'], 'procedure'],
    ['how to force building the libyaml bindings', ['--with-libyaml'], 'name'],
    ['use the fast C loader in pyyaml', ['yaml.CLoader', 'CLoader'], 'procedure'],
  ]),
  ...about('xmltodict-README.md', 'tune', [
    ['how do i turn a dict back into xml with xmltodict', ['unparse'], 'name'],
    ['xmltodict expand namespaces', ['process_namespaces=True'], 'procedure'],
    ["what's the default attr_prefix in xmltodict", ['attr_prefix is @'], 'number'],
    [
      'parse a huge xml file with xmltodict without loading it all',
      ['item_callback', 'item_depth'],
      'procedure',
    ],
    ['install xmltodict on arch', ['pacman -S python-xmltodict'], 'procedure'],
  ]),
  ...about('git-README.md', 'tune', [
    [
      'how can i read the git tutorial offline',
      ['man gittutorial', 'git help tutorial'],
      'procedure',
    ],
    ['where do i report a security bug in git', ['git-security@googlegroups.com'], 'name'],
  ]),
  ...about('make-README.txt', 'tune', [
    ["how do i build gnu make if i don't have a make yet", ['build.sh'], 'procedure'],
    ['where do i send bug reports for gnu make', ['bug-make@gnu.org'], 'name'],
  ]),
  ...about('curl.1.md', 'tune', [
    ['whats the curl flag to follow redirects', ['--location'], 'name'],
    ['how do i make curl save the file under its remote name', ['--remote-name'], 'procedure'],
    ['curl ignore ssl certificate errors', ['--insecure'], 'name'],
    ['how to send a json body with curl', ['--json'], 'procedure'],
    ['how do i put a time limit on the whole curl request', ['--max-time'], 'procedure'],
    ['how many redirects does curl follow by default?', ['limit is set to 50'], 'number'],
    ['see the response headers along with the body in curl', ['--include'], 'name'],
    ['how to resume a broken download with curl', ['--continue-at'], 'procedure'],
    ['which env var sets the proxy curl uses for https', ['HTTPS_PROXY'], 'name'],
    [
      'does curl send my password to another host when it follows a redirect?',
      ['only sends its credentials to the initial host'],
      'yes-no',
    ],
  ]),
  ...about('git-reset.1.md', 'tune', [
    [
      'how do i undo my last commit but keep the changes',
      ['git reset --soft', 'reset --soft', '--mixed'],
      'procedure',
    ],
    ["what's the default mode of git reset", ['--mixed'], 'name'],
    [
      'does git reset --hard delete untracked files?',
      ['in the way of writing any tracked files'],
      'yes-no',
    ],
    ['throw away the last 3 commits completely', ['git reset --hard HEAD~3'], 'procedure'],
  ]),
  ...about('git-stash.1.md', 'tune', [
    ['how do i stash untracked files too', ['--include-untracked'], 'procedure'],
    [
      'get my stashed changes back and drop them from the stash list',
      ['stash pop', 'pop [--index]'],
      'procedure',
    ],
    ["how do i see what's in a stash", ['stash show', 'show [-u'], 'procedure'],
    ['make a new branch from a stash', ['stash branch', 'branch <branchname>'], 'procedure'],
    [
      "what's the difference between git stash apply and pop",
      ['do not remove the state from the stash list'],
      'explanation',
    ],
  ]),
  ...about('tar.1.md', 'tune', [
    [
      'does tar keep file permissions by default?',
      ['--preserve-permissions', '--same-permissions', 'default for superuser'],
      'yes-no',
    ],
    ["list what's in a tar file without extracting it", ['--list'], 'procedure'],
    ['extract a tarball into a different directory', ['--directory'], 'procedure'],
    ['how do i exclude a folder when creating a tar', ['--exclude'], 'procedure'],
    ['tar with zstd compression', ['--zstd'], 'name'],
    ['drop the top-level folder from paths when extracting', ['--strip-components'], 'name'],
  ]),
  ...about('ssh_config.5.md', 'tune', [
    ['how long does ssh wait before giving up connecting', ['ConnectTimeout'], 'number'],
    ['keep my ssh session from dropping when idle', ['ServerAliveInterval'], 'procedure'],
    ["what's the default ServerAliveCountMax", ['default value is 3'], 'number'],
    ['how do i go through a bastion host in my ssh config', ['ProxyJump'], 'name'],
    [
      'stop ssh asking me to confirm new host keys',
      ['StrictHostKeyChecking', 'accept-new'],
      'name',
    ],
    ['where is the per-user ssh config file', ['~/.ssh/config'], 'name'],
    [
      'what happens when ServerAliveCountMax is reached',
      ['ssh will disconnect from the server'],
      'explanation',
    ],
  ]),
  // ——— holdout ———
  ...about('pip-repeatable-installs.md', 'holdout', [
    ['how do i make pip check package hashes', ['--hash'], 'procedure'],
    ['which command writes a requirements file with pinned versions', ['pip freeze'], 'name'],
    [
      'what operator pins an exact version in requirements',
      ['== operator', 'SomePackage == 1.2.3'],
      'name',
    ],
    [
      'whats the point of a wheelhouse',
      ['index servers are unavailable', 'time-consuming recompilation'],
      'explanation',
    ],
  ]),
  ...about('pip-authentication.md', 'holdout', [
    [
      'can pip read credentials from .netrc?',
      ['supports loading credentials from a user'],
      'yes-no',
    ],
    [
      'my index password has a slash in it, how do i put it in the url',
      ['percent-encoded', '%2F'],
      'procedure',
    ],
  ]),
  ...about('pip-https-certificates.md', 'holdout', [
    ["how do i point pip at my company's CA bundle", ['--cert', 'PIP_CERT'], 'procedure'],
    [
      'does pip use the system certificate store by default',
      ['does not use the system certificate store', 'certifi'],
      'yes-no',
    ],
    ['what python version do i need for truststore', ['Python 3.10'], 'number'],
  ]),
  ...about('pip-vcs-support.md', 'holdout', [
    ['pip install from a git repo over ssh', ['git+ssh'], 'procedure'],
    ['can i pin a git dependency to a tag with pip', ['@v1.0'], 'yes-no'],
    ['is it ok to use the git:// scheme with pip?', ['discouraged'], 'yes-no'],
  ]),
  ...about('pip-installation.md', 'holdout', [
    ["pip isn't installed, how do i get it", ['ensurepip', 'get-pip.py'], 'procedure'],
    ['where do i download get-pip.py', ['bootstrap.pypa.io/get-pip.py'], 'name'],
  ]),
  ...about('zstd-README.md', 'holdout', [
    ['how do i train a zstd dictionary', ['zstd --train'], 'procedure'],
    [
      'why would i train a dictionary for zstd',
      ['small data improves dramatically', 'small data'],
      'explanation',
    ],
    ['decompress with a dictionary in zstd', ['-D dictionaryName --decompress'], 'procedure'],
    ["what's the default CMAKE_BUILD_TYPE for zstd", ['set to Release'], 'number'],
    ["how do i run zstd's quick smoke tests", ['make check'], 'procedure'],
    ['what license is zstd under', ['GPLv2'], 'name'],
    ['which branch should my zstd patch go to', ['dev branch'], 'name'],
  ]),
  ...about('httplib2-README.md', 'holdout', [
    ['does httplib2 follow redirects?', ['follows 3XX redirects'], 'yes-no'],
    ['how do i add basic auth credentials with httplib2', ['add_credentials'], 'procedure'],
    ['what auth types does httplib2 support', ['WSSE'], 'explanation'],
    ['bypass the httplib2 cache for one request', ['no-cache'], 'procedure'],
  ]),
  ...about('apt-README.md', 'holdout', [
    ["how do i run apt's integration tests", ['./test/integration/run-tests'], 'procedure'],
    ['what indent style does the apt code use', ['3 spaces with 8 space tab'], 'explanation'],
    ['build apt with ninja instead of make', ['-G Ninja'], 'procedure'],
    ["apt unit tests fail but i can't see the output", ['ctest --verbose'], 'procedure'],
  ]),
  ...about('openssh-README.txt', 'holdout', [
    ['where do i report openssh bugs, on github?', ['bugzilla.mindrot.org'], 'name'],
  ]),
  ...about('python3.1.md', 'holdout', [
    ['stop python from writing .pyc files', ['PYTHONDONTWRITEBYTECODE'], 'name'],
    ['python flag for unbuffered stdout', ['PYTHONUNBUFFERED', 'streams to be unbuffered'], 'name'],
    ['run a module as a script with python', ['-m module-name'], 'procedure'],
    ['env var to add directories to the module search path', ['PYTHONPATH'], 'name'],
    [
      "start python without the user's site-packages",
      ['PYTHONNOUSERSITE', "Don't add user site directory"],
      'procedure',
    ],
  ]),
  ...about('ssh.1.md', 'holdout', [
    [
      'how do i forward a local port over ssh',
      ['-L [bind_address:]port', '-L local_socket'],
      'procedure',
    ],
    ['ssh use a specific private key file', ['-i identity_file'], 'name'],
    ['how many -v can i pass to ssh for debugging', ['maximum is 3'], 'number'],
    ['how do i kill a frozen ssh session from the keyboard', ['~.'], 'procedure'],
    ['ssh option for dynamic socks forwarding', ['-D [bind_address:]port'], 'name'],
  ]),
  ...about('git-commit.1.md', 'holdout', [
    ['how do i fix the message of my last commit', ['--amend'], 'procedure'],
    ['commit all modified files without git add', ['-a, --all'], 'procedure'],
    ['how to add a signed-off-by line to a commit', ['--signoff'], 'procedure'],
    ['can git make a commit with no changes', ['--allow-empty'], 'yes-no'],
    ['commit with a different author name', ['--author'], 'procedure'],
  ]),
  ...about('git-clone.1.md', 'holdout', [
    ['shallow clone with only the latest commit', ['--depth'], 'procedure'],
    ['clone a specific branch', ['--branch'], 'procedure'],
    ['clone a repo together with its submodules', ['--recurse-submodules'], 'procedure'],
    ["what's the remote called after git clone by default", ['origin'], 'name'],
  ]),
  ...about('make.1.md', 'holdout', [
    ['run make jobs in parallel', ['--jobs'], 'procedure'],
    ['use a makefile with a different name', ['--file', '--makefile'], 'procedure'],
    ['make dry run, print the commands but dont run them', ['--dry-run', '--just-print'], 'name'],
    ['keep going after errors in make', ['--keep-going'], 'name'],
    ['which file names does make look for by default', ['GNUmakefile'], 'name'],
  ]),
  ...about('gzip.1.md', 'holdout', [
    ['keep the original file when gzipping', ['--keep'], 'procedure'],
    ["what's gzip's default compression level", ['level is -6', 'level (-6)'], 'number'],
    ['how do i check a .gz file is not corrupt', ['--test'], 'procedure'],
    ['does gzip delete the original file?', ['replaced by one with the extension .gz'], 'yes-no'],
  ]),
  // ——— holdout2: Node.js API reference; written from the documents alone, never tuned on ———
  ...about('nodejs-readline.md', 'holdout2', [
    ['how do i read a file line by line in node', ['createInterface'], 'procedure'],
    [
      'prompt the user for input in a cli script and wait for what they type',
      ['rl.question'],
      'procedure',
    ],
    ['how many lines of history does readline keep by default', ['default: 30'], 'number'],
    [
      'reading a file from windows with readline gives me extra empty lines, crlf thing',
      ['crlfDelay'],
      'procedure',
    ],
  ]),
  ...about('nodejs-path.md', 'holdout2', [
    ['is path.join going to normalize .. segments?', ['normalizes the resulting path'], 'yes-no'],
    ['get the file extension from a path', ['path.extname'], 'name'],
    ["what's the difference between path.resolve and path.join", ['absolute path'], 'explanation'],
    ['filename without the extension in node', ['path.basename', 'path.parse'], 'procedure'],
    ['how do i handle windows style paths when my code runs on linux', ['path.win32'], 'name'],
  ]),
  ...about('nodejs-url.md', 'holdout2', [
    ['get a query param out of a url string', ['searchParams', 'URLSearchParams'], 'procedure'],
    ['convert a file:// url to a normal file path', ['fileURLToPath'], 'name'],
    ['is url.parse deprecated?', ['WHATWG URL'], 'yes-no'],
    ['check if a string is a valid url without try/catch', ['URL.canParse'], 'name'],
  ]),
  ...about('nodejs-events.md', 'holdout2', [
    ["what's the default max listeners on an event emitter", ['10 listeners'], 'number'],
    ['listen for an event just one time', ['.once('], 'procedure'],
    [
      'what happens if an emitter emits error and nobody is listening',
      ['the error is thrown', 'crashes'],
      'explanation',
    ],
    ['are event listeners called synchronously?', ['calls all listeners synchronously'], 'yes-no'],
    ['await an event with a promise', ['events.once'], 'procedure'],
  ]),
  ...about('nodejs-timers.md', 'holdout2', [
    ["what's the longest delay setTimeout accepts", ['2147483647'], 'number'],
    ['stop a setInterval from keeping the process alive', ['unref'], 'procedure'],
    ['promise version of setTimeout so i can await a sleep', ['timers/promises'], 'name'],
  ]),
  ...about('nodejs-util.md', 'holdout2', [
    ['turn a callback style function into one that returns a promise', ['promisify'], 'procedure'],
    ['deep compare two objects in node without a library', ['isDeepStrictEqual'], 'name'],
    ['parse command line flags without installing a package', ['parseArgs'], 'name'],
    ['mark a function as deprecated so callers get a warning', ['util.deprecate'], 'procedure'],
  ]),
  ...about('nodejs-os.md', 'holdout2', [
    ['how to get the home directory', ['os.homedir'], 'name'],
    [
      'how many cpus does the machine have, to size a worker pool',
      ['availableParallelism', 'os.cpus'],
      'name',
    ],
    ["what's the line ending on windows vs linux in node", ['os.EOL'], 'name'],
  ]),
  ...about('nodejs-dns.md', 'holdout2', [
    ['does dns.resolve use /etc/hosts?', ['do not use the configuration from'], 'yes-no'],
    ['get the mx records for a domain', ['resolveMx'], 'procedure'],
    ['node resolves ipv6 first, how do i make it prefer ipv4', ['ipv4first'], 'procedure'],
    ['use a custom dns server instead of the system one', ['setServers'], 'procedure'],
  ]),
  ...about('nodejs-string_decoder.md', 'holdout2', [
    [
      'decode a stream of utf8 buffers without breaking multibyte characters',
      ['StringDecoder'],
      'procedure',
    ],
  ]),
  ...about('nodejs-querystring.md', 'holdout2', [
    [
      'should i use querystring or URLSearchParams',
      ['not a standardized API', 'more performant'],
      'explanation',
    ],
  ]),
  ...about('nodejs-zlib.md', 'holdout2', [
    ['how do i gzip a file in node', ['createGzip'], 'procedure'],
    ['compress a string with brotli', ['brotliCompress'], 'procedure'],
    [
      "decompress data when i don't know if it's gzip or deflate",
      ['createUnzip', 'zlib.unzip'],
      'procedure',
    ],
    ['how much memory does deflate need with the default settings', ['256K'], 'number'],
  ]),
  ...about('nodejs-child_process.md', 'holdout2', [
    ['run a shell command and get its output', ['child_process.exec', 'execSync'], 'procedure'],
    ["what's the difference between exec and execFile", ['does not spawn a shell'], 'explanation'],
    ['maxBuffer exceeded on stdout, what is the default limit', ['1024 * 1024'], 'number'],
    [
      'does spawn run my command through a shell by default?',
      ['default: false (no shell)'],
      'yes-no',
    ],
    [
      'start a background process that keeps running after node exits',
      ['detached', 'subprocess.unref'],
      'procedure',
    ],
    ['spawn another node script and talk to it with messages', ['child_process.fork'], 'procedure'],
    ['which shell does exec use on linux', ['/bin/sh'], 'name'],
  ]),
  ...about('nodejs-worker_threads.md', 'holdout2', [
    ['run cpu heavy code on another thread', ['new Worker'], 'procedure'],
    ['can worker threads share memory?', ['SharedArrayBuffer'], 'yes-no'],
    ['check if code is running in the main thread or a worker', ['isMainThread'], 'name'],
    ['pass data to a worker when starting it', ['workerData'], 'procedure'],
  ]),
  ...about('nodejs-console.md', 'holdout2', [
    ['time how long a block of code takes using console', ['console.time'], 'procedure'],
    ['write console output to a log file instead of the terminal', ['new Console'], 'procedure'],
    ['print an array of objects as a table', ['console.table'], 'name'],
  ]),
  ...about('nodejs-process.md', 'holdout2', [
    ['load a .env file without dotenv', ['loadEnvFile'], 'name'],
    [
      'what exit code does node use for an uncaught exception',
      ['1 uncaught fatal exception'],
      'number',
    ],
    [
      'my output gets cut off when i call process.exit, why',
      ['asynchronous write', 'process.exitCode'],
      'explanation',
    ],
    ['get the args passed to my node script', ['process.argv'], 'name'],
    ['high resolution time for benchmarks in node', ['hrtime'], 'name'],
  ]),
  ...about('nodejs-cluster.md', 'holdout2', [
    [
      'does cluster restart workers that crash?',
      ['does not automatically manage the number of workers'],
      'yes-no',
    ],
    [
      'how does cluster spread connections across workers by default',
      ['round-robin'],
      'explanation',
    ],
    ['env var to change the cluster scheduling policy', ['NODE_CLUSTER_SCHED_POLICY'], 'name'],
    ['use all cpu cores for my http server', ['cluster.fork'], 'procedure'],
  ]),
  // ——— nothing in the set answers these ———
  ...(
    [
      ['how do i set up nginx as a reverse proxy', 'tune'],
      ['whats the kubectl command to scale a deployment', 'tune'],
      ['how do i rotate docker container logs', 'tune'],
      ['how do i enable dark mode in vscode', 'holdout'],
      ["what's the maximum size of a redis key", 'holdout'],
      ['how to schedule a task in windows task scheduler', 'holdout'],
      ['how do i set up path aliases in webpack', 'holdout2'],
      ["what's the default port of the vite dev server", 'holdout2'],
      ['how do i add a column with a prisma migration', 'holdout2'],
    ] as const
  ).map(
    ([text, split], index): AnswerQuestion => ({
      id: `unanswerable#${index + 1}`,
      text,
      document: null,
      phrases: [],
      category: 'explanation',
      split,
    }),
  ),
];
