import { CopyButton } from '../../../components/copy-button';

/**
 * A signing secret, shown this once (the API returns it on create and on
 * rotation only): the value, a copy button and what to do with it.
 */
export function SecretOnce({
  secret,
  rotated,
}: {
  readonly secret: string;
  readonly rotated: boolean;
}) {
  return (
    <div class="secret-once">
      <p class="secret-once__warning" role="note">
        Copy the signing secret now: it is shown only this once. Your receiver checks each request's{' '}
        <code>X-Svc-Signature</code> with it.
        {rotated
          ? ' The previous secret keeps signing beside it for 24 hours, so the receiver can switch over.'
          : ''}
      </p>
      <p class="secret-once__value">
        Signing secret: <code>{secret}</code> <CopyButton value={secret} label="Copy secret" />
      </p>
    </div>
  );
}
