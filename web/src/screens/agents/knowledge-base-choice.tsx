import { useSignal } from '@preact/signals';
import { formatNumber } from '../../format/format';
import type { DataSource } from './agents-api';

/**
 * The organization's knowledge base, offered to every agent on its own:
 * ticked, the agent answers from the published articles, a new one as soon
 * as it is indexed, without the agent being edited. The line under it says
 * which is the case, as the box changes.
 */
export function KnowledgeBaseChoice({
  source,
  included,
}: {
  readonly source: DataSource;
  readonly included: boolean;
}) {
  const checked = useSignal(included);
  const chunks = source.chunks_indexed;
  return (
    <fieldset class="choices-list">
      <legend>Knowledge base</legend>
      <label class="choice">
        <input
          type="checkbox"
          name="data_source_ids"
          value={source.id}
          checked={checked.value}
          aria-describedby="agent-kb-state"
          onChange={(event) => {
            checked.value = event.currentTarget.checked;
          }}
        />
        <span>
          Answer from the knowledge base{' '}
          <span class="choice__detail">
            (
            {chunks === 0
              ? 'no published articles yet'
              : `${formatNumber(chunks)} ${chunks === 1 ? 'chunk' : 'chunks'} indexed`}
            )
          </span>
        </span>
      </label>
      <p id="agent-kb-state" class="form__hint" aria-live="polite">
        {checked.value
          ? 'Included: the agent answers from the published articles, new ones too, without being edited.'
          : 'Not included: the agent does not answer from knowledge-base articles.'}{' '}
        <a href="/kb">Knowledge base</a>
      </p>
    </fieldset>
  );
}
