/** `npm run demo-site`: a small loopback website for the README's walkthrough (DEMO_SITE_PORT, default 8080). */
import { startDemoSite } from '../lib/local/demo-site';

startDemoSite(Number(process.env.DEMO_SITE_PORT ?? 8080)).then(
  ({ url }) => console.log(`Demo site on ${url} (Ctrl-C to stop)`),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
