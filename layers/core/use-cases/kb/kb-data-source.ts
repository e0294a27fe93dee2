import type { DataSource } from '../../domain/data-source';
import { kbDataSourceIdFor, newKbDataSource } from '../../domain/kb-article';
import type { Clock } from '../../ports/clock.port';
import type { DataSourceRepository } from '../../ports/data-source-repository.port';
import { dataSourceCreated } from '../events/domain-events';

/**
 * The organization's built-in `kb` data source, created the first time
 * the knowledge base is used (listing or writing articles). Its id derives
 * from the organization's, so concurrent first uses race for one conditional
 * put: exactly one creates it (and stores `datasource.created`), the others
 * read what it wrote. A read first keeps the common case to one `GetItem`.
 */
export async function ensureKbDataSource(
  deps: {
    readonly dataSources: Pick<DataSourceRepository, 'get' | 'createIfAbsent'>;
    readonly clock: Clock;
  },
  orgId: string,
): Promise<DataSource> {
  const id = kbDataSourceIdFor(orgId);
  const existing = await deps.dataSources.get(orgId, id);
  if (existing) return existing;
  const now = deps.clock.now();
  const source = newKbDataSource(orgId, now);
  if (await deps.dataSources.createIfAbsent(orgId, source, [dataSourceCreated(orgId, source, now)]))
    return source;
  const created = await deps.dataSources.get(orgId, id);
  if (!created) throw new Error(`The knowledge base data source ${id} exists but cannot be read`);
  return created;
}
