import { useLocation } from 'preact-iso/router';
import { useApp } from '../../state/app-context';
import { roleAtLeast } from '../../state/session';
import { CreateDataSource, EditDataSource } from './create';
import { DataSourceDetail } from './detail';
import { DataSourceList } from './list';
import './data-sources.css';

export const BASE = '/data-sources';

/**
 * Data sources (issue 21 item 7): the list at `/data-sources`, a new one at
 * `/data-sources/new` (role `configure`), one source at
 * `/data-sources/<id>` and its settings at `/data-sources/<id>/edit`.
 */
export default function DataSources() {
  const { session } = useApp();
  const location = useLocation();
  const rest = location.path.slice(BASE.length).replace(/^\/+|\/+$/g, '');
  const canChange = roleAtLeast(session.role.value ?? 'readonly', 'configure');
  if (rest === '') return <DataSourceList canChange={canChange} />;
  if (rest === 'new' && canChange) return <CreateDataSource />;
  const editing = /^(ds_[0-9a-z]+)\/edit$/.exec(rest);
  if (editing?.[1] && canChange) return <EditDataSource id={editing[1]} />;
  if (/^ds_[0-9a-z]+$/.test(rest)) {
    return <DataSourceDetail id={rest} canChange={canChange} />;
  }
  return (
    <section class="screen">
      <h1>Page not found</h1>
      <p>
        There is no page at this address, or your role does not open it.{' '}
        <a href={BASE}>Go to data sources</a>.
      </p>
    </section>
  );
}
