import type { Plan } from './plans';

export const ORGANIZATION_LIMITS = {
  nameMax: 200,
  /** Ranges in one organization's IP allowlist. */
  ipAllowlistMax: 100,
  /** Longest text an allowlist entry may be (a full IPv6 range is 43 characters). */
  cidrMax: 64,
} as const;

/** What an organization's administrators set for it. */
export interface OrganizationSettings {
  /**
   * CIDR ranges (IPv4 and IPv6, canonical form) the organization's API
   * keys and sessions may be used from. Empty: from anywhere.
   */
  readonly ip_allowlist: readonly string[];
}

export const DEFAULT_ORGANIZATION_SETTINGS: OrganizationSettings = { ip_allowlist: [] };

export interface Organization {
  readonly id: string;
  readonly name: string;
  readonly plan: Plan;
  readonly created_at: string;
  /** Absent on organizations stored before settings existed: read as the defaults. */
  readonly settings?: OrganizationSettings;
  readonly updated_at?: string;
}

/** The organization's settings, defaults filled in for items stored before a setting existed. */
export function settingsOf(organization: Organization): OrganizationSettings {
  return { ...DEFAULT_ORGANIZATION_SETTINGS, ...organization.settings };
}
