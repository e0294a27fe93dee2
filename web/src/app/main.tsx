import { render } from 'preact';
import { ApiError } from '../api/api-error';
import { createApiClient } from '../api/client';
import { createSession } from '../state/session';
import { browserStorage, mustAskWhoIsSignedIn } from '../state/session-hint';
import { createTheme } from '../state/theme';
import '../styles/tokens.css';
import '../styles/base.css';
import { App } from './app';
import { preloadScreenAt, SIGN_IN_PATH } from './routes';

const session = createSession((hooks) => createApiClient(hooks));
const theme = createTheme();
const root = document.getElementById('app');
if (!root) throw new Error('index.html has no #app element');
render(<App services={{ session, theme }} />, root);
const ask = mustAskWhoIsSignedIn(window.location.pathname, SIGN_IN_PATH, browserStorage());
session.load({ ask }).catch((error: unknown) => {
  // The service did not answer as it should: sign-in shows, saying so.
  session.notice.value =
    error instanceof ApiError
      ? error.message
      : 'The service did not answer: try again in a moment.';
  session.status.value = 'signed-out';
});
// Loaded while the question above is on its way, not after its answer.
preloadScreenAt(window.location.pathname, SIGN_IN_PATH);
