import { useLayoutEffect } from 'preact/hooks';
import { useLocation } from 'preact-iso/router';

/** Replaces the current history entry with `to` (no entry to go "back" to a page that only redirects). */
export function Redirect({ to }: { readonly to: string }) {
  const location = useLocation();
  useLayoutEffect(() => {
    location.route(to, true);
  }, [to]);
  return null;
}
