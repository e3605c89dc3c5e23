#include "engine/items/document_text.h"

namespace cosmos::engine {
namespace {

// Properties the service owns on every document; client-sent values are replaced.
constexpr const char* kDocumentSystemProperties[] = {"_rid", "_self", "_etag", "_attachments", "_ts"};

}  // namespace

bool IsDocumentSystemProperty(std::string_view name) {
  for (const char* system : kDocumentSystemProperties) {
    if (name == system) return true;
  }
  return false;
}

void EraseSystemProperties(Json& document) {
  for (const char* name : kDocumentSystemProperties) document.erase(name);
}

std::string DocumentText(std::string_view body, bool compact, Json& document,
                         const SystemProperties& system) {
  bool has_system_property = false;
  for (const char* name : kDocumentSystemProperties) has_system_property |= document.contains(name);
  if (compact && !has_system_property && body.size() > 2 && body.back() == '}') {
    std::string text;
    text.reserve(body.size() + 160);
    text.append(body, 0, body.size() - 1);
    text += ",\"_rid\":\"" + system.rid + "\",\"_self\":\"" + system.self + "\",\"_etag\":" +
            Json(system.etag).dump() + ",\"_attachments\":\"attachments/\",\"_ts\":" +
            std::to_string(system.ts) + "}";
    return text;
  }
  EraseSystemProperties(document);
  document["_rid"] = system.rid;
  document["_self"] = system.self;
  document["_etag"] = system.etag;
  document["_attachments"] = "attachments/";
  document["_ts"] = system.ts;
  return document.dump();
}

}  // namespace cosmos::engine
