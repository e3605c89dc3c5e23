// Small text helpers shared by the query formatter and the plan builder.
#pragma once

#include <cctype>
#include <initializer_list>
#include <string>
#include <string_view>

namespace cosmos::query::plan_internal {

// Concatenates pieces in one allocation. (Also keeps GCC 12 quiet: it reports a bogus -Wrestrict
// on `"literal" + std::string` once inlined.)
inline std::string Cat(std::initializer_list<std::string_view> pieces) {
  size_t size = 0;
  for (std::string_view piece : pieces) size += piece.size();
  std::string out;
  out.reserve(size);
  for (std::string_view piece : pieces) out.append(piece);
  return out;
}

// `format(item)` for each item, separated by ", ".
template <typename Range, typename Format>
std::string JoinFormatted(const Range& items, Format format) {
  std::string out;
  for (const auto& item : items) {
    if (!out.empty()) out.append(", ");
    out.append(format(item));
  }
  return out;
}

// ASCII case-insensitive equality: SQL keywords and system function names.
inline bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

}  // namespace cosmos::query::plan_internal
