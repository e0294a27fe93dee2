import { useSignal } from '@preact/signals';
import { useLocation } from 'preact-iso/router';
import { ApiError } from '../../api/api-error';
import { unwrap } from '../../api/client';
import { useAction } from '../../api/use-action';
import { useLoad } from '../../api/use-load';
import { ErrorNotice } from '../../components/error-notice';
import { useApp } from '../../state/app-context';
import { type CreatableType, type DataSource, FREQUENCY_NAMES, TYPE_NAMES } from './words';

const TYPES: readonly CreatableType[] = [
  'website',
  'file',
  'confluence',
  'slack',
  'google_drive',
  'sharepoint',
];

/** What each type asks for: its `config` fields, each with its label and hint. */
interface ConfigField {
  readonly name: string;
  readonly label: string;
  readonly hint: string;
  readonly kind: 'url' | 'number' | 'list';
  readonly required: boolean;
}

const CONFIG_FIELDS: Readonly<Record<CreatableType, readonly ConfigField[]>> = {
  website: [
    {
      name: 'url',
      label: 'Start address',
      hint: 'The page the crawl starts from; pages it links to on the same site are read too.',
      kind: 'url',
      required: true,
    },
    {
      name: 'max_pages',
      label: 'Most pages',
      hint: 'The crawl stops after this many pages (1 to 10,000).',
      kind: 'number',
      required: false,
    },
  ],
  file: [],
  confluence: [
    {
      name: 'base_url',
      label: 'Site address',
      hint: 'Your Confluence Cloud site, https://<site>.atlassian.net.',
      kind: 'url',
      required: true,
    },
    {
      name: 'space_keys',
      label: 'Space keys',
      hint: 'One or more, separated by commas or new lines (ENG, HR).',
      kind: 'list',
      required: true,
    },
  ],
  slack: [
    {
      name: 'channel_ids',
      label: 'Channel ids',
      hint: 'C… or G…, the last part of a channel link; separated by commas or new lines.',
      kind: 'list',
      required: true,
    },
  ],
  google_drive: [
    {
      name: 'folder_ids',
      label: 'Folder ids',
      hint: 'The part after /folders/ in a folder’s address. Folder ids, shared drive ids or both.',
      kind: 'list',
      required: false,
    },
    {
      name: 'shared_drive_ids',
      label: 'Shared drive ids',
      hint: 'The part after /folders/ when a shared drive is open.',
      kind: 'list',
      required: false,
    },
  ],
  sharepoint: [
    {
      name: 'site_url',
      label: 'Site address',
      hint: 'https://<tenant>.sharepoint.com/sites/<site>, or a OneDrive for Business address.',
      kind: 'url',
      required: true,
    },
    {
      name: 'drive_ids',
      label: 'Library ids',
      hint: 'Optional: only these document libraries; without them, every library of the site.',
      kind: 'list',
      required: false,
    },
  ],
};

/** The words `a, b\nc` as a list. */
export function splitList(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/** The `config` the form describes; empty optional fields are left out. */
export function configOf(type: CreatableType, form: FormData): Record<string, unknown> {
  const config: Record<string, unknown> = {};
  for (const field of CONFIG_FIELDS[type]) {
    const raw = String(form.get(field.name) ?? '').trim();
    if (raw === '') continue;
    if (field.kind === 'number') config[field.name] = Number(raw);
    else if (field.kind === 'list') config[field.name] = splitList(raw);
    else config[field.name] = raw;
  }
  return config;
}

/** A 400's field path (`config.url`) as the form names it. */
function fieldLabel(type: CreatableType, path: string): string {
  if (path === 'name') return 'Name';
  if (path === 'sync_frequency') return 'Sync';
  const name = path.replace(/^config\./, '').split('.')[0] ?? path;
  return CONFIG_FIELDS[type].find((field) => field.name === name)?.label ?? path;
}

/** A new data source of any type; it opens once made (issue 21 item 7). */
export function CreateDataSource() {
  return <DataSourceForm editing={null} />;
}

/**
 * An existing source's name, settings and sync, on the same form as a
 * new one; its type cannot change (the API refuses it), so it is shown, not
 * asked. Saving replaces the settings as a whole, as the API does.
 */
export function EditDataSource({ id }: { readonly id: string }) {
  const { session } = useApp();
  const loaded = useLoad(
    (signal) =>
      unwrap(session.api.GET('/api/v1/data-sources/{id}', { params: { path: { id } }, signal })),
    [id],
  );
  const source = loaded.data.value;
  if (loaded.error.value) {
    return (
      <section class="screen">
        <h1>Edit data source</h1>
        <ErrorNotice error={loaded.error.value} />
      </section>
    );
  }
  if (!source) return <p role="status">Loading the data source…</p>;
  if (source.type === 'kb') {
    return (
      <section class="screen">
        <h1>{source.name}</h1>
        <p>The knowledge base is its articles; it has no settings to edit.</p>
      </section>
    );
  }
  return <DataSourceForm editing={source} />;
}

/** A list setting as the form shows it: one item a line. */
function configText(value: unknown): string {
  if (Array.isArray(value)) return value.map(String).join('\n');
  return value === undefined || value === null ? '' : String(value);
}

function DataSourceForm({ editing }: { readonly editing: DataSource | null }) {
  const { session } = useApp();
  const location = useLocation();
  const type = useSignal<CreatableType>(
    editing && editing.type !== 'kb' ? editing.type : 'website',
  );
  const save = useAction(async (form: FormData) => {
    const fields = {
      name: String(form.get('name') ?? ''),
      sync_frequency: String(
        form.get('sync_frequency') ?? 'manual',
      ) as DataSource['sync_frequency'],
      config: configOf(type.value, form),
    };
    const saved: DataSource = editing
      ? await unwrap(
          session.api.PUT('/api/v1/data-sources/{id}', {
            params: { path: { id: editing.id } },
            body: fields,
          }),
        )
      : await unwrap(
          session.api.POST('/api/v1/data-sources', { body: { type: type.value, ...fields } }),
        );
    if (!editing && type.value === 'website' && form.get('sync_now') === 'on') {
      // The source exists either way: a refused sync is shown on its page, where "Sync now" is.
      await session.api
        .POST('/api/v1/data-sources/{id}/sync', { params: { path: { id: saved.id } } })
        .catch(() => undefined);
    }
    location.route(`/data-sources/${saved.id}`);
  });
  const submit = (event: SubmitEvent) => {
    event.preventDefault();
    void save.run(new FormData(event.currentTarget as HTMLFormElement));
  };
  const failure = save.failure.value;
  const fields = failure instanceof ApiError ? failure.fields : [];
  const back = editing ? `/data-sources/${editing.id}` : '/data-sources';
  const heading = editing ? `Edit ${editing.name}` : 'New data source';

  return (
    <section class="screen" aria-labelledby="source-form-heading">
      <p class="breadcrumb">
        <a href="/data-sources">Data sources</a>
      </p>
      <h1 id="source-form-heading">{heading}</h1>
      <form class="form panel source-form" onSubmit={submit}>
        {editing ? (
          <p>
            Type: <strong>{TYPE_NAMES[type.value]}</strong> (a source keeps its type; make a new one
            for another)
          </p>
        ) : (
          <>
            <label for="source-type">Type</label>
            <select
              id="source-type"
              name="type"
              value={type.value}
              onChange={(event) => {
                type.value = (event.currentTarget as HTMLSelectElement).value as CreatableType;
              }}
            >
              {TYPES.map((value) => (
                <option key={value} value={value}>
                  {TYPE_NAMES[value]}
                </option>
              ))}
            </select>
          </>
        )}
        <label for="source-name">Name</label>
        <input
          id="source-name"
          name="name"
          required
          maxLength={200}
          autoComplete="off"
          defaultValue={editing?.name}
        />
        {CONFIG_FIELDS[type.value].map((field) => (
          <ConfigInput
            key={`${type.value}-${field.name}`}
            field={field}
            value={configText(editing?.config[field.name])}
          />
        ))}
        {type.value === 'file' && !editing ? (
          <p class="form__hint">
            Files are added on the data source’s page once it is made: PDF, DOCX, HTML, Markdown,
            plain text or CSV, up to 50 MiB each.
          </p>
        ) : null}
        {type.value !== 'file' && type.value !== 'website' && !editing ? (
          <p class="form__hint">
            After it is made, “Connect” signs in to {TYPE_NAMES[type.value]} to grant access.
          </p>
        ) : null}
        {editing && type.value !== 'file' ? (
          <p class="form__hint">New settings are read at the next sync.</p>
        ) : null}
        {/* Files are indexed as they arrive: a file source has no sync to schedule. */}
        {type.value === 'file' ? null : (
          <>
            <label for="source-frequency">Sync</label>
            <select
              id="source-frequency"
              name="sync_frequency"
              defaultValue={editing?.sync_frequency ?? 'manual'}
            >
              {Object.entries(FREQUENCY_NAMES).map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          </>
        )}
        {type.value === 'website' && !editing ? (
          <div class="checkbox-field">
            <input id="source-sync-now" name="sync_now" type="checkbox" defaultChecked />
            <label for="source-sync-now">Start syncing as soon as it is made</label>
          </div>
        ) : null}
        <div class="form__actions">
          <button type="submit" class="button button--primary" disabled={save.pending.value}>
            {editing ? 'Save changes' : 'Create data source'}
          </button>
          <a class="button" href={back}>
            Cancel
          </a>
        </div>
      </form>
      {failure ? (
        <div>
          <ErrorNotice error={failure} />
          {fields.length > 0 ? (
            <ul class="field-errors" aria-label="What to correct">
              {fields.map((field) => (
                <li key={field.path}>
                  {fieldLabel(type.value, field.path)}: {field.message}
                </li>
              ))}
            </ul>
          ) : null}
        </div>
      ) : null}
    </section>
  );
}

function ConfigInput({ field, value }: { readonly field: ConfigField; readonly value: string }) {
  const id = `config-${field.name}`;
  const hint = `${id}-hint`;
  return (
    <>
      <label for={id}>{field.label}</label>
      {field.kind === 'list' ? (
        <textarea
          id={id}
          name={field.name}
          rows={2}
          required={field.required}
          defaultValue={value}
          aria-describedby={hint}
        />
      ) : field.kind === 'number' ? (
        <input
          id={id}
          name={field.name}
          type="number"
          min={1}
          max={10_000}
          placeholder="100"
          required={field.required}
          defaultValue={value}
          aria-describedby={hint}
        />
      ) : (
        <input
          id={id}
          name={field.name}
          type="url"
          placeholder="https://"
          required={field.required}
          defaultValue={value}
          aria-describedby={hint}
        />
      )}
      <p class="form__hint" id={hint}>
        {field.hint}
      </p>
    </>
  );
}
