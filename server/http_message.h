// The request and response as the request handler sees them: plain values with no socket and
// no Beast types, so the handler can be tested without a network.
// Thread-safety: plain values.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/encoding.h"

namespace cosmos::server {

// Header names compare case-insensitively, as HTTP requires. They are kept in lower case, so that
// a lookup by a lower-case name (every name in headers.h) compares bytes: comparing case-blind
// character by character was 5% of a create's instructions.
class Headers {
 public:
  void Set(std::string name, std::string value) { values_[ToLowerAscii(name)] = std::move(value); }
  std::optional<std::string> Get(std::string_view name) const {
    auto found = HasUpperAscii(name) ? values_.find(ToLowerAscii(name)) : values_.find(name);
    if (found == values_.end()) return std::nullopt;
    return found->second;
  }
  bool IsTrue(std::string_view name) const {  // "True"/"true" flags the SDKs send
    auto value = Get(name);
    return value && EqualsIgnoreCaseAscii(*value, "true");
  }

 private:
  static bool HasUpperAscii(std::string_view text) {
    for (char c : text) {
      if (c >= 'A' && c <= 'Z') return true;
    }
    return false;
  }

  std::map<std::string, std::string, std::less<>> values_;
};

struct HttpRequest {
  std::string method;     // upper case, e.g. "GET"
  std::string target;     // path and query as received, still percent-encoded
  Headers headers;
  std::string body;
  bool secure = false;    // arrived over TLS (for the endpoint the account document advertises)
};

struct HttpResponse {
  int status = 200;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;

  void AddHeader(std::string name, std::string value) {
    headers.emplace_back(std::move(name), std::move(value));
  }
  std::optional<std::string> FindHeader(std::string_view name) const {
    for (const auto& [key, value] : headers) {
      if (EqualsIgnoreCaseAscii(key, name)) return value;
    }
    return std::nullopt;
  }
};

}  // namespace cosmos::server
