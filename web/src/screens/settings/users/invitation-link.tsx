import { CopyButton } from '../../../components/copy-button';
import { formatDateTime } from '../../../format/format';

/**
 * An invitation's link, shown once: to copy and hand over, and said
 * to have gone out by mail too (issue 22 item 9). It signs in whoever opens
 * it, so the words say to send it to that person only.
 */
export function InvitationLink({
  email,
  url,
  expiresAt,
}: {
  readonly email: string;
  readonly url: string;
  readonly expiresAt: string;
}) {
  return (
    <>
      <p>
        We also sent this link to {email} by mail. It works once, until {formatDateTime(expiresAt)}.
        Give it to {email} only, as it lets whoever opens it choose the password. It is not shown
        again: a new invitation replaces it.
      </p>
      <div class="people-link">
        <code>{url}</code>
        <CopyButton value={url} label="Copy link" />
      </div>
    </>
  );
}
