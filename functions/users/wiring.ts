import { DynamoDbAgentRepository } from '../../layers/core/adapters/dynamodb/agent-repository';
import { DynamoDbGroupRepository } from '../../layers/core/adapters/dynamodb/group-repository';
import { cloudHttpPlatform } from '../../layers/core/wiring/cloud/cloud-http-platform';
import { cloudMailer } from '../../layers/core/wiring/cloud/cloud-mail';
import { cloudTable } from '../../layers/core/wiring/cloud/cloud-table';
import { compositionRoot } from '../../layers/core/wiring/composition-root';

/**
 * Users (D13) and groups (issue 9 item 5, P82): the table, the session
 * secret every family checks sessions with, the mailer for invitations
 * (P264: SES when the stack names an identity); the agents a
 * group may name are checked in the table too.
 */
export const dependencies = compositionRoot(() => {
  const { client, tableName } = cloudTable();
  return {
    ...cloudHttpPlatform(),
    ...cloudMailer(),
    groups: new DynamoDbGroupRepository(client, tableName),
    agents: new DynamoDbAgentRepository(client, tableName),
    // P91: API Gateway's request context names the address the console is reached at (invitation links).
    publicBaseUrl: () => undefined,
  };
});

export type UsersDependencies = ReturnType<typeof dependencies>;
