import { useLocation } from 'preact-iso/router';
import { useApp } from '../../state/app-context';
import { roleAtLeast } from '../../state/session';
import { CompareRuns } from './compare';
import { pageAt } from './evaluations.state';
import { NewRun } from './new-run';
import { RunList } from './run-list';
import { RunPage } from './run-page';
import './evaluations.css';

/**
 * Evaluations (issue 22 item 8; docs/evaluations.md): an agent run over a
 * question set — pasted, from a CSV file or from rated interactions —
 * followed while it runs, its results per question and in total, and two
 * runs of one agent compared. Viewing is `readonly` and up; starting a run
 * takes `configure`, and below it no control to start one is shown.
 */
export default function Evaluations() {
  const { session } = useApp();
  const location = useLocation();
  const canStart = roleAtLeast(session.role.value ?? 'readonly', 'configure');
  const page = pageAt(location.path);

  switch (page.kind) {
    case 'list':
      return <RunList canStart={canStart} />;
    case 'new':
      return canStart ? <NewRun /> : <NeedsRole />;
    case 'compare':
      return <CompareRuns />;
    case 'run':
      return <RunPage key={page.id} id={page.id} />;
    default:
      return <Missing />;
  }
}

function NeedsRole() {
  return (
    <section class="screen">
      <h1>New evaluation</h1>
      <p>
        Starting an evaluation needs the configure role: ask an administrator.{' '}
        <a href="/evaluations">See the evaluations</a>.
      </p>
    </section>
  );
}

function Missing() {
  return (
    <section class="screen">
      <h1>Page not found</h1>
      <p>
        There is no page at this address. <a href="/evaluations">Go to the evaluations</a>.
      </p>
    </section>
  );
}
