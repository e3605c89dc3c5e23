// The account was created with Strong consistency "to be safe", and the dashboard reads with the
// account's default: every read is served by two replicas and costs twice as much.
import { CosmosClient } from "@azure/cosmos";

export function dashboardClient(endpoint, key) {
  return new CosmosClient({ endpoint, key });
}
