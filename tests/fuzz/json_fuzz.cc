// Fuzz target: ParseJson against nlohmann's parser (they must accept the same texts and build
// the same values, up to ParseJson's nesting limit), and ShapeOfJsonText on anything.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "common/json_parse.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  cosmos::JsonTextShape shape = cosmos::ShapeOfJsonText(text);
  cosmos::Json ours = cosmos::ParseJson(text);
  // Past ParseJson's nesting limit only it refuses; nlohmann takes a NUL byte for the end of
  // the text, ParseJson (rightly) for a character that JSON text may not hold.
  if (shape.depth > 500 || text.find('\0') != std::string_view::npos) return 0;
  cosmos::Json theirs = cosmos::Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (ours.is_discarded() != theirs.is_discarded()) std::abort();
  if (!ours.is_discarded() && ours != theirs) std::abort();
  if (!ours.is_discarded()) (void)ours.dump();
  return 0;
}
