/** A deployment, and every key, is either `live` or `test`. */
export const ENVIRONMENTS = ['live', 'test'] as const;
export type Environment = (typeof ENVIRONMENTS)[number];
