#include "engine/change_feed/change_log.h"

namespace cosmos::engine {

int64_t ChangeLogRetentionOf(const Json& properties) {
  auto policy = properties.find("changeFeedPolicy");
  if (policy == properties.end() || !policy->is_object()) return 0;
  auto minutes = policy->find("retentionDuration");
  if (minutes == policy->end() || !minutes->is_number_integer() || minutes->get<int64_t>() <= 0) return 0;
  return minutes->get<int64_t>() * 60;
}

Json PartitionKeyObject(const PartitionKeyDefinition& definition, const PartitionKeyValue& value) {
  Json object = Json::object();
  for (size_t i = 0; i < definition.paths.size() && i < value.components.size(); ++i) {
    if (!value.components[i].undefined) object[definition.paths[i].substr(1)] = value.components[i].value;
  }
  return object;
}

ChangeLogEntry DeletionEntry(int64_t lsn, int64_t crts, int64_t previous_lsn, std::string id, Json partition_key) {
  ChangeLogEntry entry;
  entry.operation = "delete";
  entry.lsn = lsn;
  entry.crts = crts;
  entry.previous_lsn = previous_lsn;
  entry.id = std::move(id);
  entry.partition_key = std::move(partition_key);
  return entry;
}

std::string ChangeLogText(const ChangeLogEntry& entry) {
  Json metadata = {{"operationType", entry.operation}, {"lsn", entry.lsn}, {"crts", entry.crts}};
  if (entry.previous_lsn > 0) metadata["previousImageLSN"] = entry.previous_lsn;
  if (!entry.current) {
    metadata["id"] = entry.id;
    metadata["partitionKey"] = entry.partition_key;
  }
  if (entry.ttl_expired) metadata["timeToLiveExpired"] = true;
  // A delete has no current image: the service writes an empty object.
  std::string text = "{\"current\":";
  text += entry.current ? *entry.current : std::string("{}");
  text += ',';
  text += "\"metadata\":";
  text += metadata.dump();
  text += '}';
  return text;
}

}  // namespace cosmos::engine
