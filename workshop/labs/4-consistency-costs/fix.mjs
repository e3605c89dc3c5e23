// The dashboard reads its own writes within one session: Session consistency is enough, and a
// client (or a single request) may relax the account's level, never strengthen it.
import { CosmosClient } from "@azure/cosmos";

export function dashboardClient(endpoint, key) {
  return new CosmosClient({ endpoint, key, consistencyLevel: "Session" });
}
