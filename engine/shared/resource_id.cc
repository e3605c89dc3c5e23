#include "engine/shared/resource_id.h"

#include <vector>

#include "common/encoding.h"

namespace cosmos::engine {
namespace {

constexpr uint8_t kCollectionFlag = 0x80;  // byte 4: collection (set) versus user (clear)

void AppendDatabase(std::vector<uint8_t>& bytes, int64_t seq) {
  for (int shift = 0; shift < 32; shift += 8) bytes.push_back(static_cast<uint8_t>(seq >> shift));
}

void AppendContainer(std::vector<uint8_t>& bytes, int64_t seq) {
  // Big-endian with the flag in the first byte, so small sequence numbers keep the flag visible.
  uint32_t value = static_cast<uint32_t>(seq) & 0x7FFFFFFF;
  bytes.push_back(static_cast<uint8_t>(value >> 24) | kCollectionFlag);
  bytes.push_back(static_cast<uint8_t>(value >> 16));
  bytes.push_back(static_cast<uint8_t>(value >> 8));
  bytes.push_back(static_cast<uint8_t>(value));
}

// A child of a collection: 8 little-endian bytes whose top nibble names the type.
void AppendChild(std::vector<uint8_t>& bytes, int64_t seq, uint8_t type_nibble) {
  uint64_t value = (static_cast<uint64_t>(seq) & 0x0FFFFFFFFFFFFFFFULL) | (uint64_t{type_nibble} << 60);
  for (int shift = 0; shift < 64; shift += 8) bytes.push_back(static_cast<uint8_t>(value >> shift));
}

constexpr uint8_t kDocumentType = 0x0;
constexpr uint8_t kPartitionKeyRangeType = 0x5;

uint8_t ScriptTypeNibble(std::string_view kind) {
  return kind == "sprocs" ? 0x8 : kind == "triggers" ? 0x7 : 0x6;
}

std::string Encode(const std::vector<uint8_t>& bytes) {
  std::string text = Base64Encode(bytes);
  for (char& c : text) {
    if (c == '/') c = '-';
  }
  return text;
}

}  // namespace

std::string ResourceId::ForOffer(int64_t offer_seq) {
  std::vector<uint8_t> bytes;
  for (int shift = 0; shift < 24; shift += 8) bytes.push_back(static_cast<uint8_t>(offer_seq >> shift));
  return Encode(bytes);
}

std::optional<int64_t> ResourceId::ParseOffer(std::string_view text) {
  if (text.size() != 4) return std::nullopt;
  std::string standard(text);
  for (char& c : standard) {
    if (c == '-') c = '/';
  }
  std::optional<std::vector<uint8_t>> bytes = Base64Decode(standard);
  if (!bytes || bytes->size() != 3) return std::nullopt;
  int64_t seq = (*bytes)[0] | ((*bytes)[1] << 8) | ((*bytes)[2] << 16);
  if (seq == 0) return std::nullopt;
  return seq;
}

std::string ResourceId::ForDatabase(int64_t database_seq) {
  std::vector<uint8_t> bytes;
  AppendDatabase(bytes, database_seq);
  return Encode(bytes);
}

std::string ResourceId::ForContainer(int64_t database_seq, int64_t container_seq) {
  std::vector<uint8_t> bytes;
  AppendDatabase(bytes, database_seq);
  AppendContainer(bytes, container_seq);
  return Encode(bytes);
}

std::string ResourceId::ForDocument(int64_t database_seq, int64_t container_seq,
                                    int64_t document_seq) {
  std::vector<uint8_t> bytes;
  AppendDatabase(bytes, database_seq);
  AppendContainer(bytes, container_seq);
  AppendChild(bytes, document_seq, kDocumentType);
  return Encode(bytes);
}

std::string ResourceId::ForPartitionKeyRange(int64_t database_seq, int64_t container_seq, int64_t range_id) {
  std::vector<uint8_t> bytes;
  AppendDatabase(bytes, database_seq);
  AppendContainer(bytes, container_seq);
  // Range ids start at 0; the stored number is id + 1 so that no rid body is all zeros.
  AppendChild(bytes, range_id + 1, kPartitionKeyRangeType);
  return Encode(bytes);
}

std::string ResourceId::ForScript(int64_t database_seq, int64_t container_seq, std::string_view kind,
                                  int64_t script_seq) {
  std::vector<uint8_t> bytes;
  AppendDatabase(bytes, database_seq);
  AppendContainer(bytes, container_seq);
  AppendChild(bytes, script_seq, ScriptTypeNibble(kind));
  return Encode(bytes);
}

std::optional<int64_t> ResourceId::ParseScript(std::string_view text, std::string_view kind) {
  std::string base64(text);
  for (char& c : base64) {
    if (c == '-') c = '/';
  }
  std::optional<std::vector<uint8_t>> bytes = Base64Decode(base64);
  if (!bytes || bytes->size() != 16 || ((*bytes)[15] >> 4) != ScriptTypeNibble(kind)) return std::nullopt;
  uint64_t value = 0;
  for (int k = 15; k >= 8; --k) value = (value << 8) | (*bytes)[k];
  value &= 0x0FFFFFFFFFFFFFFFULL;
  if (value == 0) return std::nullopt;
  return static_cast<int64_t>(value);
}

std::optional<ResourceId> ResourceId::Parse(std::string_view text) {
  std::string base64(text);
  for (char& c : base64) {
    if (c == '-') c = '/';
  }
  std::optional<std::vector<uint8_t>> bytes = Base64Decode(base64);
  if (!bytes || (bytes->size() != 4 && bytes->size() != 8 && bytes->size() != 16)) {
    return std::nullopt;
  }
  const std::vector<uint8_t>& b = *bytes;
  ResourceId id;
  for (int k = 3; k >= 0; --k) id.database = (id.database << 8) | b[k];
  if (id.database == 0) return std::nullopt;
  if (b.size() >= 8) {
    if ((b[4] & kCollectionFlag) == 0) return std::nullopt;  // a user, not a collection
    id.container = ((b[4] & 0x7F) << 24) | (b[5] << 16) | (b[6] << 8) | b[7];
    if (id.container == 0) return std::nullopt;
  }
  if (b.size() == 16) {
    if ((b[15] >> 4) != 0) return std::nullopt;  // not a document
    uint64_t value = 0;
    for (int k = 15; k >= 8; --k) value = (value << 8) | b[k];
    id.document = static_cast<int64_t>(value);
    if (id.document == 0) return std::nullopt;
  }
  return id;
}

std::string SecurityResourceId::ForUser(int64_t database_seq, int64_t user_seq) {
  std::vector<uint8_t> bytes;
  AppendDatabase(bytes, database_seq);
  uint32_t value = static_cast<uint32_t>(user_seq) & 0x7FFFFFFF;
  for (int shift = 24; shift >= 0; shift -= 8) bytes.push_back(static_cast<uint8_t>(value >> shift));
  return Encode(bytes);
}

std::string SecurityResourceId::ForPermission(int64_t database_seq, int64_t user_seq, int64_t permission_seq) {
  std::vector<uint8_t> bytes;
  AppendDatabase(bytes, database_seq);
  uint32_t value = static_cast<uint32_t>(user_seq) & 0x7FFFFFFF;
  for (int shift = 24; shift >= 0; shift -= 8) bytes.push_back(static_cast<uint8_t>(value >> shift));
  AppendChild(bytes, permission_seq, 0);
  return Encode(bytes);
}

std::optional<SecurityResourceId> SecurityResourceId::Parse(std::string_view text) {
  std::string base64(text);
  for (char& c : base64) {
    if (c == '-') c = '/';
  }
  std::optional<std::vector<uint8_t>> bytes = Base64Decode(base64);
  if (!bytes || (bytes->size() != 8 && bytes->size() != 16)) return std::nullopt;
  const std::vector<uint8_t>& b = *bytes;
  if ((b[4] & kCollectionFlag) != 0) return std::nullopt;  // a collection, not a user
  SecurityResourceId id;
  for (int k = 3; k >= 0; --k) id.database = (id.database << 8) | b[k];
  id.user = (b[4] << 24) | (b[5] << 16) | (b[6] << 8) | b[7];
  if (id.database == 0 || id.user == 0) return std::nullopt;
  if (b.size() == 16) {
    uint64_t value = 0;
    for (int k = 15; k >= 8; --k) value = (value << 8) | b[k];
    id.permission = static_cast<int64_t>(value);
    if (id.permission == 0) return std::nullopt;
  }
  return id;
}

}  // namespace cosmos::engine
