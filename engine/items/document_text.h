// The stored text of a document: the client's properties followed by the system properties the
// service owns (_rid, _self, _etag, _attachments, _ts); client-sent values of those are replaced.
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/json.h"

namespace cosmos::engine {

struct SystemProperties {
  std::string rid;
  std::string self;
  std::string etag;
  int64_t ts = 0;
};

// Whether `name` is one of the properties the service owns on every document.
bool IsDocumentSystemProperty(std::string_view name);

// Removes the system properties from a document (a stored one being patched).
void EraseSystemProperties(Json& document);

// `body` is the client's text and `document` its parse. A compact body (no whitespace outside
// strings) without system properties of its own is extended in place; anything else is
// re-serialized from `document`, which then holds the system properties too.
std::string DocumentText(std::string_view body, bool compact, Json& document, const SystemProperties& system);

}  // namespace cosmos::engine
