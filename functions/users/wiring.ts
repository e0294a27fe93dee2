import { DynamoDbAgentRepository } from '../../layers/core/adapters/dynamodb/agent-repository';
import { DynamoDbGroupRepository } from '../../layers/core/adapters/dynamodb/group-repository';
import { cloudHttpPlatform } from '../../layers/core/wiring/cloud/cloud-http-platform';
import { cloudMailer } from '../../layers/core/wiring/cloud/cloud-mail';
import { cloudTable } from '../../layers/core/wiring/cloud/cloud-table';
import { compositionRoot } from '../../layers/core/wiring/composition-root';

/**
 * Users and groups (issue 9 item 5): the table, the session
 * secret every family checks sessions with, the mailer for invitations
 * (SES when the stack names an identity); the agents a
 * group may name are checked in the table too.
 */
export const dependencies = compositionRoot(() => {
  const { client, tableName } = cloudTable();
  return {
    ...cloudHttpPlatform(),
    ...cloudMailer(),
    groups: new DynamoDbGroupRepository(client, tableName),
    agents: new DynamoDbAgentRepository(client, tableName),
    // API Gateway's request context names the address the console is reached at (invitation links).
    publicBaseUrl: () => undefined,
  };
});

export type UsersDependencies = ReturnType<typeof dependencies>;
