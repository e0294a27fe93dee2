import { useSignal } from '@preact/signals';
import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { useLocation } from 'preact-iso/router';
import { useAction } from '../api/use-action';
import { useApp } from '../state/app-context';
import type { ScreenRoute } from './routes';

/**
 * The frame around every signed-in page: the organization's name, the theme
 * toggle and the user menu; the navigation landmark with the screens this
 * person's role opens (the others are not shown); and `<main>`, which
 * takes the focus when the page changes so keyboard and screen-reader users
 * start at the new content.
 */
export function Shell({
  screens,
  children,
}: {
  readonly screens: readonly ScreenRoute[];
  readonly children: ComponentChildren;
}) {
  const { session } = useApp();
  const location = useLocation();
  const main = useRef<HTMLElement>(null);
  const firstPath = useRef(location.path);
  useEffect(() => {
    if (location.path !== firstPath.current) main.current?.focus();
    firstPath.current = '';
  }, [location.path]);
  const organization = session.me.value?.organization.name ?? '';

  return (
    <div class="shell">
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="shell__header">
        <p class="shell__brand">
          <span class="shell__product">Agent Query Service</span>
          <span class="shell__organization">{organization}</span>
        </p>
        <div class="shell__tools">
          <ThemeToggle />
          <UserMenu />
        </div>
      </header>
      <nav class="shell__nav" aria-label="Main">
        <ul class="nav-list">
          {screens.map((screen) => {
            const current =
              location.path === screen.path || location.path.startsWith(`${screen.path}/`);
            return (
              <li key={screen.path}>
                <a href={screen.path} aria-current={current ? 'page' : undefined}>
                  {screen.label}
                </a>
              </li>
            );
          })}
        </ul>
      </nav>
      <main id="main" class="shell__main" tabIndex={-1} ref={main}>
        {children}
      </main>
    </div>
  );
}

function ThemeToggle() {
  const { theme } = useApp();
  const dark = theme.effective.value === 'dark';
  return (
    <button
      type="button"
      class="button button--quiet"
      aria-pressed={dark}
      onClick={() => theme.choose(dark ? 'light' : 'dark')}
    >
      Dark theme
    </button>
  );
}

/** A disclosure (button + panel): Esc or a click elsewhere closes it, and focus returns to the button. */
function UserMenu() {
  const { session } = useApp();
  const open = useSignal(false);
  // Signing out ends this browser's session even when the service cannot be reached (the
  // session forgets it either way), so there is no failure to show here.
  const signOut = useAction(() => session.signOut());
  const root = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const me = session.me.value;

  useEffect(() => {
    if (!open.value) return undefined;
    const onPointer = (event: PointerEvent) => {
      if (!root.current?.contains(event.target as Node)) open.value = false;
    };
    document.addEventListener('pointerdown', onPointer);
    return () => document.removeEventListener('pointerdown', onPointer);
  }, [open.value]);
  // On the menu's own controls, not the document: a key pressed right after opening is never missed.
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key !== 'Escape' || !open.value) return;
    open.value = false;
    button.current?.focus();
  };

  if (!me) return null;
  return (
    <div class="user-menu" ref={root}>
      <button
        type="button"
        class="button button--quiet"
        aria-expanded={open.value}
        aria-controls="user-menu-panel"
        ref={button}
        onKeyDown={onKeyDown}
        onClick={() => {
          open.value = !open.value;
        }}
      >
        {me.user.name}
      </button>
      <div id="user-menu-panel" class="user-menu__panel" hidden={!open.value}>
        <p class="user-menu__email">{me.user.email}</p>
        <p class="user-menu__role">Role: {me.access.role}</p>
        <button
          type="button"
          class="button"
          disabled={signOut.pending.value}
          onKeyDown={onKeyDown}
          onClick={() => void signOut.run()}
        >
          Sign out
        </button>
      </div>
    </div>
  );
}
