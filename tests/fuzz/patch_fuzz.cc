// Fuzz target: a PATCH body parsed and applied to a document. Any body must apply or be refused
// with 400, never crash.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/json.h"
#include "engine/items/patch.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view body(reinterpret_cast<const char*>(data), size);
  auto patch = cosmos::engine::ParsePatch(body);
  if (!patch.ok()) return 0;
  cosmos::Json document = cosmos::Json::parse(
      R"({"id":"a","pk":"p","n":1,"tags":["x","y"],"nested":{"a":{"b":[1,2,{"c":3}]}},"s":"text"})");
  (void)cosmos::engine::ApplyPatch(patch->operations, document);
  (void)document.dump();
  return 0;
}
