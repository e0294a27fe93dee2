import { en } from 'zod/locales';
import * as z from 'zod/mini';

/**
 * zod/mini ships without a locale, so every issue would read "Invalid
 * input"; classic zod set English itself. Clients read these messages in
 * 400 bodies and operators in configuration errors, so they stay as
 * they were. Importing `en` by name keeps the other locales out of bundles
 * (`z.locales.en` would pull them all in). Imported for its effect by the
 * modules that turn issues into messages.
 */
z.config(en());
