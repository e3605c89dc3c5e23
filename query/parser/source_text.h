// SourceText: the query text decoded once into the code points ANTLR scans, with the maps from a
// code point index back to the original text: UTF-8 byte offsets (to slice names and literals out
// without re-encoding) and UTF-16 offsets (what SourceSpan reports, as the service counts
// characters in its .NET strings). For ASCII text all three coincide and no map is stored.
// Thread-safety: immutable after Decode; the viewed text must outlive it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cosmos::query::parser_internal {

class SourceText {
 public:
  // Fails (returns nullopt) on malformed UTF-8, setting *error_offset to its UTF-16 offset.
  static std::optional<SourceText> Decode(std::string_view utf8, int* error_offset);

  const std::u32string& code_points() const { return code_points_; }
  size_t size() const { return code_points_.size(); }

  // The original UTF-8 text of code points [first, end).
  std::string_view Slice(size_t first, size_t end) const {
    return utf8_.substr(ByteOffset(first), ByteOffset(end) - ByteOffset(first));
  }
  // REQUIRES: index <= size().
  int Utf16Offset(size_t index) const {
    return ascii_ ? static_cast<int>(index) : static_cast<int>(utf16_offsets_[index]);
  }

 private:
  size_t ByteOffset(size_t index) const { return ascii_ ? index : byte_offsets_[index]; }

  std::string_view utf8_;
  std::u32string code_points_;
  bool ascii_ = true;
  std::vector<uint32_t> byte_offsets_;   // size() + 1 entries unless ascii_
  std::vector<uint32_t> utf16_offsets_;  // size() + 1 entries unless ascii_
};

}  // namespace cosmos::query::parser_internal
