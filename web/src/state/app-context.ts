import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Session } from './session';
import type { Theme } from './theme';

/** What every screen may reach: the session (and through it the one API client) and the theme. */
export interface AppServices {
  readonly session: Session;
  readonly theme: Theme;
}

export const AppContext = createContext<AppServices | null>(null);

export function useApp(): AppServices {
  const services = useContext(AppContext);
  if (!services) throw new Error('useApp() outside <AppContext.Provider>');
  return services;
}
