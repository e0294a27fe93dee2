import type { Plan } from './plans';

export const ORGANIZATION_LIMITS = { nameMax: 200 } as const;

export interface Organization {
  readonly id: string;
  readonly name: string;
  readonly plan: Plan;
  readonly created_at: string;
}
