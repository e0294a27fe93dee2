/**
 * A screen's own stylesheet, loaded when its code is. The page links only
 * the shell's stylesheet, so the first render waits for nothing else;
 * web/build.mjs makes each lazily loaded screen wait for its stylesheet
 * (`await loadStylesheet(…)` at the top of its chunk) before it renders, so
 * a screen never shows unstyled and then jumps into place.
 */
const loading = new Map<string, Promise<void>>();

export function loadStylesheet(href: string): Promise<void> {
  const known = loading.get(href);
  if (known !== undefined) return known;
  const done = new Promise<void>((resolve) => {
    const link = document.createElement('link');
    link.rel = 'stylesheet';
    link.href = href;
    // A stylesheet that fails to load leaves the screen plainer, not missing: it renders anyway.
    link.addEventListener('load', () => resolve(), { once: true });
    link.addEventListener('error', () => resolve(), { once: true });
    document.head.append(link);
  });
  loading.set(href, done);
  return done;
}
