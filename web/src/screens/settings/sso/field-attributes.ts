/**
 * What every SSO form field carries: its id (which its label names), its
 * form name, and aria-invalid when the service refused it. The OIDC and SAML
 * parts of the form both use it, from the one set of refused fields.
 */
export function fieldAttributes(invalid: ReadonlySet<string | null>) {
  return (name: string) => ({
    id: `sso-${name}`,
    name,
    'aria-invalid': invalid.has(name) ? ('true' as const) : undefined,
  });
}

export type FieldAttributes = ReturnType<typeof fieldAttributes>;
