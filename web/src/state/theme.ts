import { computed, effect, signal } from '@preact/signals';

export type ThemeChoice = 'system' | 'light' | 'dark';
const STORAGE_KEY = 'svc-console-theme';

/**
 * Light and dark (CONSOLE.md §9): the console follows `prefers-color-scheme`
 * until the person picks one, and remembers the pick on this browser. The
 * effective theme is written to `<html data-theme>`, which every colour
 * token in styles/tokens.css keys on.
 */
export function createTheme(root: HTMLElement = document.documentElement) {
  const query = window.matchMedia('(prefers-color-scheme: dark)');
  const systemDark = signal(query.matches);
  query.addEventListener('change', (event) => {
    systemDark.value = event.matches;
  });
  const choice = signal<ThemeChoice>(readChoice());
  const effective = computed<'light' | 'dark'>(() =>
    choice.value === 'system' ? (systemDark.value ? 'dark' : 'light') : choice.value,
  );
  effect(() => {
    root.dataset.theme = effective.value;
  });
  return {
    choice,
    effective,
    choose(next: ThemeChoice): void {
      choice.value = next;
      try {
        if (next === 'system') localStorage.removeItem(STORAGE_KEY);
        else localStorage.setItem(STORAGE_KEY, next);
      } catch {
        // Storage refused (private mode): the choice lasts until the page closes.
      }
    },
  };
}

function readChoice(): ThemeChoice {
  try {
    const stored = localStorage.getItem(STORAGE_KEY);
    return stored === 'light' || stored === 'dark' ? stored : 'system';
  } catch {
    return 'system';
  }
}

export type Theme = ReturnType<typeof createTheme>;
