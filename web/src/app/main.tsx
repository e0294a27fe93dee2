import { render } from 'preact';
import { createApiClient } from '../api/client';
import { createSession } from '../state/session';
import { createTheme } from '../state/theme';
import '../styles/tokens.css';
import '../styles/base.css';
import { App } from './app';

const session = createSession((hooks) => createApiClient(hooks));
const theme = createTheme();
const root = document.getElementById('app');
if (!root) throw new Error('index.html has no #app element');
render(<App services={{ session, theme }} />, root);
session.load().catch(() => {
  // The service did not answer: sign-in shows, and signing in reports what is wrong.
  session.status.value = 'signed-out';
});
