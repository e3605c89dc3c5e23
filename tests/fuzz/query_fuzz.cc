// Fuzz target: Cosmos SQL text through the parser and the binder. Any text must come back as a
// query or a 400-shaped error, never a crash, a hang or unbounded recursion.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "query/binder.h"
#include "query/parser/parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto parsed = cosmos::query::ParseQuery(text);
  if (parsed.ok()) (void)cosmos::query::Bind(std::move(parsed).value(), text);
  return 0;
}
