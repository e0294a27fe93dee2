import { LocationProvider, Route, Router, useLocation } from 'preact-iso/router';
import { Redirect } from '../components/redirect';
import { ScreenBoundary } from '../components/screen-boundary';
import { AppContext, type AppServices, useApp } from '../state/app-context';
import { roleAtLeast } from '../state/session';
import {
  CONSOLE_LINKS,
  FORGOT_PASSWORD_PATH,
  INVITATION_PATH,
  PASSWORD_RESET_PATH,
  PUBLIC_SCREENS,
  SCREENS,
  SETUP_PATH,
  SIGN_IN_PATH,
  safeReturnPath,
} from './routes';
import { Shell } from './shell';

export function App({ services }: { readonly services: AppServices }) {
  return (
    <AppContext.Provider value={services}>
      <LocationProvider scope={CONSOLE_LINKS}>
        <Gate />
      </LocationProvider>
    </AppContext.Provider>
  );
}

/**
 * Who sees what: an invitation link opens its page whoever is signed in,
 * and so do "Forgot password?" and a password reset link;
 * someone not signed in gets the first administrator's page while it is
 * offered, else sign-in, which remembers the page they wanted
 * (`?next=`) and returns there; someone signed in gets the shell.
 */
function Gate() {
  const { session } = useApp();
  const location = useLocation();
  const status = session.status.value;

  if (location.path === INVITATION_PATH) {
    return (
      <ScreenBoundary>
        <PUBLIC_SCREENS.acceptInvitation />
      </ScreenBoundary>
    );
  }
  if (location.path === FORGOT_PASSWORD_PATH) {
    return (
      <ScreenBoundary>
        <PUBLIC_SCREENS.forgotPassword />
      </ScreenBoundary>
    );
  }
  if (location.path === PASSWORD_RESET_PATH) {
    return (
      <ScreenBoundary>
        <PUBLIC_SCREENS.passwordReset />
      </ScreenBoundary>
    );
  }
  if (status === 'loading') {
    return (
      <p class="loading" role="status">
        Loading…
      </p>
    );
  }
  if (status === 'signed-out') {
    if (session.setupAvailable.value) {
      if (location.path !== SETUP_PATH) return <Redirect to={SETUP_PATH} />;
      return (
        <ScreenBoundary>
          <PUBLIC_SCREENS.firstAdministrator />
        </ScreenBoundary>
      );
    }
    if (location.path !== SIGN_IN_PATH) {
      const next = location.url === '/' ? null : safeReturnPath(location.url);
      return (
        <Redirect to={next ? `${SIGN_IN_PATH}?next=${encodeURIComponent(next)}` : SIGN_IN_PATH} />
      );
    }
    return (
      <ScreenBoundary>
        <PUBLIC_SCREENS.signIn />
      </ScreenBoundary>
    );
  }
  if (location.path === SIGN_IN_PATH || location.path === SETUP_PATH) {
    return <Redirect to={safeReturnPath(location.query.next) ?? '/'} />;
  }
  return <SignedIn />;
}

function SignedIn() {
  const { session } = useApp();
  const role = session.role.value ?? 'readonly';
  const visible = SCREENS.filter((screen) => roleAtLeast(role, screen.role));
  const home = visible[0]?.path ?? '/settings';
  return (
    <Shell screens={visible}>
      <ScreenBoundary>
        <Router>
          {[
            ...visible.map((screen) => (
              <Route
                key={screen.path}
                path={`${screen.path}/:rest*`}
                component={screen.component}
              />
            )),
            <Route key="home" path="/" component={Redirect} to={home} />,
            <Route key="missing" default component={NotFound} />,
          ]}
        </Router>
      </ScreenBoundary>
    </Shell>
  );
}

function NotFound() {
  return (
    <section class="screen">
      <h1>Page not found</h1>
      <p>
        There is no page at this address, or your role does not open it.{' '}
        <a href="/">Go to the start page</a>.
      </p>
    </section>
  );
}
