import { useLocation } from 'preact-iso/router';
import { WebhookList } from './webhook-list';
import { WebhookPage } from './webhook-page';
import './webhooks.css';

export const WEBHOOKS_PATH = '/settings/webhooks';

/**
 * Settings → Webhooks (issue 22 item 6; role `configure`): the list at
 * `/settings/webhooks`, one webhook and its deliveries at
 * `/settings/webhooks/<id>`.
 */
export default function Webhooks() {
  const location = useLocation();
  const rest = location.path.slice(WEBHOOKS_PATH.length).replace(/^\/+|\/+$/g, '');
  if (rest === '') return <WebhookList />;
  if (/^wh_[0-9a-z]+$/.test(rest)) return <WebhookPage id={rest} />;
  return (
    <section class="panel" aria-labelledby="webhook-missing-heading">
      <h2 id="webhook-missing-heading">Page not found</h2>
      <p>
        There is no webhook page at this address. <a href={WEBHOOKS_PATH}>Go to webhooks</a>.
      </p>
    </section>
  );
}
