// Fuzz target: what the server reads before any handler runs — the request path (the route) and
// the authorization header. The first input line is the path, the rest the header value.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "server/auth.h"
#include "server/resource_path.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  size_t newline = input.find('\n');
  std::string_view path = input.substr(0, newline);
  std::string_view header = newline == std::string_view::npos ? std::string_view() : input.substr(newline + 1);
  auto resource = cosmos::server::ResourcePath::Parse(path);
  static const auto auth = cosmos::server::MasterKeyAuth::Create(
      "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==");
  cosmos::server::HttpRequest request;
  request.method = "GET";
  request.target = std::string(path);
  request.headers.Set("authorization", std::string(header));
  request.headers.Set("x-ms-date", "Tue, 01 Dec 2026 08:00:00 GMT");
  if (resource.ok()) {
    (void)auth->Verify(request, resource->auth_resource_type, resource->auth_resource_link, 1796198400);
  } else {
    (void)auth->Verify(request, "docs", std::string(path), 1796198400);
  }
  return 0;
}
