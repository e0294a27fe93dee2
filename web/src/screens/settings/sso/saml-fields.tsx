import type { Signal } from '@preact/signals';
import { useSignal } from '@preact/signals';
import { Fragment } from 'preact';
import { useRef } from 'preact/hooks';
import { CopyButton } from '../../../components/copy-button';
import type { FieldAttributes } from './field-attributes';
import {
  SAML_SOURCE_NAMES,
  type SamlSource,
  type ServiceProviderValues,
  type SsoConfiguration,
} from './sso-setup';

/** What to register at a SAML IdP: the ACS URL, the SP entity ID and the SP metadata URL, each with its copy button. */
export function SamlServiceValues({
  serviceProvider,
}: {
  readonly serviceProvider: ServiceProviderValues;
}) {
  return (
    <>
      <dl class="facts sso-values">
        <dt>ACS URL</dt>
        <dd>
          <code>{serviceProvider.acsUrl}</code>{' '}
          <CopyButton value={serviceProvider.acsUrl} label="Copy ACS URL" />
        </dd>
        <dt>SP entity ID</dt>
        <dd>
          <code>{serviceProvider.entityId}</code>{' '}
          <CopyButton value={serviceProvider.entityId} label="Copy SP entity ID" />
        </dd>
        <dt>SP metadata URL</dt>
        <dd>
          <code>{serviceProvider.metadataUrl}</code>{' '}
          <CopyButton value={serviceProvider.metadataUrl} label="Copy SP metadata URL" />
        </dd>
      </dl>
      <p class="form__hint">
        Most identity providers read all of these from the SP metadata URL. Their responses come
        back to the ACS URL by HTTP-POST, with the assertion signed.
      </p>
    </>
  );
}

/**
 * The SAML IdP's values, given one of three ways: its metadata URL (read
 * when saving), its metadata XML (pasted or read from a file), or by hand
 * (entity ID, SSO URL, binding, certificates). What is in use now shows
 * first when SAML is already saved.
 */
export function SamlFields({
  source,
  saved,
  sameProtocol,
  input,
}: {
  readonly source: Signal<SamlSource>;
  readonly saved: SsoConfiguration | null;
  /** The saved configuration is SAML too, so its values fill the fields. */
  readonly sameProtocol: boolean;
  readonly input: FieldAttributes;
}) {
  const samlSource = source;
  const metadataXml = useRef<HTMLTextAreaElement>(null);
  const fileProblem = useSignal<string | null>(null);
  // A file's XML goes into the field, where it can be read before saving.
  const readFile = async (event: Event) => {
    const file = (event.currentTarget as HTMLInputElement).files?.[0];
    fileProblem.value = null;
    if (!file || !metadataXml.current) return;
    try {
      metadataXml.current.value = await file.text();
    } catch {
      fileProblem.value = `${file.name} could not be read; paste its contents instead.`;
    }
  };
  return (
    <>
      {saved?.saml && sameProtocol ? <SamlInUse saml={saved.saml} /> : null}
      <fieldset class="choices">
        <legend>How to give the IdP</legend>
        {(Object.keys(SAML_SOURCE_NAMES) as SamlSource[]).map((value) => (
          <label class="choice" key={value}>
            <input
              type="radio"
              name="saml_source"
              value={value}
              checked={samlSource.value === value}
              onChange={() => {
                samlSource.value = value;
              }}
            />
            {SAML_SOURCE_NAMES[value]}
          </label>
        ))}
      </fieldset>
      {samlSource.value === 'url' ? (
        <Fragment key="url">
          <label for="sso-metadata_url">Metadata URL</label>
          <p class="form__hint" id="sso-metadata-url-hint">
            Where your IdP publishes its metadata, https://…. It is read once, when you save; save
            again to read it anew.
          </p>
          <input
            {...input('metadata_url')}
            type="url"
            required
            maxLength={2000}
            autoComplete="off"
            aria-describedby="sso-metadata-url-hint"
            defaultValue={sameProtocol ? (saved?.saml?.metadata_url ?? '') : ''}
          />
        </Fragment>
      ) : null}
      {samlSource.value === 'xml' ? (
        <Fragment key="xml">
          <label for="sso-metadata_xml">Metadata XML</label>
          <p class="form__hint" id="sso-metadata-xml-hint">
            Paste the IdP’s metadata (an EntityDescriptor), or read it from a file below.
          </p>
          <textarea
            {...input('metadata_xml')}
            ref={metadataXml}
            required
            rows={8}
            spellcheck={false}
            aria-describedby="sso-metadata-xml-hint"
          />
          <label for="sso-metadata-file">Read the XML from a file</label>
          <input
            id="sso-metadata-file"
            type="file"
            class="sso-file"
            accept=".xml,application/xml,text/xml,application/samlmetadata+xml"
            onChange={(event) => void readFile(event)}
          />
          {fileProblem.value ? (
            <p class="form__hint" role="alert">
              {fileProblem.value}
            </p>
          ) : null}
        </Fragment>
      ) : null}
      {samlSource.value === 'manual' ? (
        <Fragment key="manual">
          <label for="sso-idp_entity_id">IdP entity ID</label>
          <input
            {...input('idp_entity_id')}
            required
            maxLength={500}
            autoComplete="off"
            defaultValue={sameProtocol ? (saved?.saml?.idp_entity_id ?? '') : ''}
          />
          <label for="sso-sso_url">SSO URL</label>
          <p class="form__hint" id="sso-sso-url-hint">
            Where the browser is sent to sign in, https://….
          </p>
          <input
            {...input('sso_url')}
            type="url"
            required
            maxLength={2000}
            autoComplete="off"
            aria-describedby="sso-sso-url-hint"
            defaultValue={sameProtocol ? (saved?.saml?.sso_url ?? '') : ''}
          />
          <label for="sso-sso_binding">Binding</label>
          <p class="form__hint" id="sso-sso-binding-hint">
            How the SSO URL takes the sign-in request. With HTTP-POST, people press “Continue” once
            on the way to the IdP.
          </p>
          <select
            id="sso-sso_binding"
            name="sso_binding"
            aria-describedby="sso-sso-binding-hint"
            defaultValue={sameProtocol ? (saved?.saml?.sso_binding ?? 'redirect') : 'redirect'}
          >
            <option value="redirect">HTTP-Redirect</option>
            <option value="post">HTTP-POST</option>
          </select>
          <label for="sso-certificates">Signing certificates</label>
          <p class="form__hint" id="sso-certificates-hint">
            The IdP’s X.509 certificate in PEM (-----BEGIN CERTIFICATE-----…); up to four, one after
            the other, while it rolls its keys over.
          </p>
          <textarea
            {...input('certificates')}
            required
            rows={6}
            spellcheck={false}
            aria-describedby="sso-certificates-hint"
            defaultValue={sameProtocol ? (saved?.saml?.idp_certificates.join('\n') ?? '') : ''}
          />
        </Fragment>
      ) : (
        <Fragment key="metadata-signing">
          <label for="sso-metadata_signing_certificate">
            Metadata signing certificate (optional)
          </label>
          <p class="form__hint" id="sso-metadata-signing-hint">
            If your IdP signs its metadata: its certificate in PEM. Metadata not signed with it is
            then refused.
          </p>
          <textarea
            {...input('metadata_signing_certificate')}
            rows={4}
            spellcheck={false}
            aria-describedby="sso-metadata-signing-hint"
          />
        </Fragment>
      )}
    </>
  );
}

/** What SAML sign-in uses now, as read from the metadata or given by hand. */
function SamlInUse({ saml }: { readonly saml: NonNullable<SsoConfiguration['saml']> }) {
  const count = saml.idp_certificates.length;
  return (
    <>
      <h4 class="sso-subheading">In use now</h4>
      <dl class="facts sso-values">
        <dt>IdP entity ID</dt>
        <dd>
          <code>{saml.idp_entity_id}</code>
        </dd>
        <dt>SSO URL</dt>
        <dd>
          <code>{saml.sso_url}</code>
        </dd>
        <dt>Binding</dt>
        <dd>{saml.sso_binding === 'post' ? 'HTTP-POST' : 'HTTP-Redirect'}</dd>
        <dt>Signing certificates</dt>
        <dd>{count === 1 ? 'one' : count}</dd>
        {saml.metadata_url ? (
          <>
            <dt>Read from</dt>
            <dd>
              <code>{saml.metadata_url}</code>
            </dd>
          </>
        ) : null}
      </dl>
    </>
  );
}
