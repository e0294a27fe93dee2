import { useLocation } from 'preact-iso/router';
import { AgentForm } from './agent-form';
import { AgentList } from './agent-list';
import { AgentPage } from './agent-page';
import './agents.css';

/**
 * The Agents screen's pages (issue 21 item 6): the list (`/agents`), a new
 * agent (`/agents/new`), an agent with its playground and search tab
 * (`/agents/:id`, `?tab=search`) and its form (`/agents/:id/edit`).
 */
export default function Agents() {
  const location = useLocation();
  const [, , id, action, ...rest] = location.path.split('/');
  if (!id) return <AgentList />;
  if (id === 'new' && !action) return <AgentForm agentId={null} />;
  if (id.startsWith('agt_') && !action) return <AgentPage key={id} agentId={id} />;
  if (id.startsWith('agt_') && action === 'edit' && rest.length === 0) {
    return <AgentForm key={id} agentId={id} />;
  }
  return (
    <section class="screen">
      <h1>Page not found</h1>
      <p>
        There is no agent page at this address. <a href="/agents">Go to the agents</a>.
      </p>
    </section>
  );
}
