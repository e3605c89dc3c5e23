#include "engine/partitioning/effective_partition_key.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace cosmos::engine {
namespace {

// The one-byte type marker that starts every component, in both serialisations below.
enum class Marker : uint8_t {
  kUndefined = 0x00,
  kNull = 0x01,
  kFalse = 0x02,
  kTrue = 0x03,
  kNumber = 0x05,
  kString = 0x08,
};

// V1 cuts strings to this many UTF-16 code units (C# Substring) before hashing and encoding.
constexpr size_t kV1MaxStringUnits = 100;
// The binary encoding keeps strings of up to this many UTF-8 bytes whole, with a terminator;
// longer ones keep one byte more and lose the terminator.
constexpr size_t kMaxWholeEncodedStringBytes = 100;
// What C# and JS put in UTF-8 for the high surrogate a 100-unit cut leaves alone (U+FFFD).
constexpr std::string_view kReplacementCharacter = "\xEF\xBF\xBD";

constexpr uint8_t kV1StringTerminator = 0x00;
constexpr uint8_t kV2StringTerminator = 0xFF;

constexpr uint64_t kSignBit = uint64_t{1} << 63;

// The hash spaces the boundaries divide. V1 EPKs start with an encoded uint32 hash, so every one
// sorts below the encoding of 2^32. V2 hashes have their top two bits cleared: below 0x40 << 120.
using Uint128 = unsigned __int128;
constexpr uint64_t kV1SpaceEnd = uint64_t{1} << 32;
constexpr Uint128 kV2SpaceEnd = Uint128{0x40} << 120;
constexpr size_t kV2HexDigits = 32;

constexpr std::string_view kMinEpk = "";
constexpr std::string_view kMaxEpk = "FF";

// A component reduced to what the serialisations need.
struct Component {
  Marker marker = Marker::kUndefined;
  double number = 0;  // when kNumber
  std::string text;   // when kString: UTF-8
};

Component Normalize(const PartitionKeyComponent& component) {
  const Json& value = component.value;
  if (component.undefined) return {};
  if (value.is_null()) return {Marker::kNull, 0, {}};
  if (value.is_boolean()) return {value.get<bool>() ? Marker::kTrue : Marker::kFalse, 0, {}};
  // Integers too: the service sees every JSON number as a double.
  if (value.is_number()) return {Marker::kNumber, value.get<double>(), {}};
  if (value.is_string()) return {Marker::kString, 0, value.get<std::string>()};
  return {};  // objects and arrays are undefined, as in a document
}

// The first `max_units` UTF-16 code units of UTF-8 text. A character outside the BMP counts two
// units; when the cut falls between them, the lone high surrogate becomes U+FFFD, as it does when
// C# or JS encode the cut string.
std::string TruncateToUtf16Units(const std::string& text, size_t max_units) {
  size_t units = 0;
  size_t pos = 0;
  while (pos < text.size() && units < max_units) {
    auto lead = static_cast<uint8_t>(text[pos]);
    size_t length = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
    if (length == 4 && units + 2 > max_units) {
      return text.substr(0, pos) + std::string(kReplacementCharacter);
    }
    units += length == 4 ? 2 : 1;
    pos += length;
  }
  return text.substr(0, std::min(pos, text.size()));
}

void PutByte(std::string& out, uint8_t byte) { out.push_back(static_cast<char>(byte)); }
void PutMarker(std::string& out, Marker marker) { PutByte(out, static_cast<uint8_t>(marker)); }
void PutBigEndian64(std::string& out, uint64_t value) {
  for (int shift = 56; shift >= 0; shift -= 8) PutByte(out, static_cast<uint8_t>(value >> shift));
}

// The bytes MurmurHash reads: the marker, then a number's IEEE bits little-endian, or a string's
// UTF-8 and the version's terminator.
void AppendForHashing(std::string& out, const Component& component, uint8_t string_terminator) {
  PutMarker(out, component.marker);
  if (component.marker == Marker::kNumber) {
    auto bits = std::bit_cast<uint64_t>(component.number);
    for (int shift = 0; shift < 64; shift += 8) PutByte(out, static_cast<uint8_t>(bits >> shift));
  } else if (component.marker == Marker::kString) {
    out += component.text;
    PutByte(out, string_terminator);
  }
}

// Maps a double onto an unsigned integer with the same order: positives above the sign bit,
// negatives mirrored below it.
uint64_t OrderedBits(double number) {
  auto bits = std::bit_cast<uint64_t>(number);
  return bits < kSignBit ? bits ^ kSignBit : ~bits + 1;
}

double FromOrderedBits(uint64_t ordered) {
  uint64_t bits = ordered >= kSignBit ? ordered ^ kSignBit : ~ordered + 1;
  return std::bit_cast<double>(bits);
}

// The ordered bits' top byte whole, then 7-bit groups from the top, each byte's bit 0 saying
// "another group follows". Trailing zero bits are not written, so short numbers stay short and
// byte order is numeric order.
void AppendEncodedNumber(std::string& out, double number) {
  uint64_t rest = OrderedBits(number);
  PutMarker(out, Marker::kNumber);
  PutByte(out, static_cast<uint8_t>(rest >> 56));
  rest <<= 8;
  do {
    auto group = static_cast<uint8_t>((rest >> 56) | 0x01);
    rest <<= 7;
    if (rest == 0) group &= 0xFE;  // the last group
    PutByte(out, group);
  } while (rest != 0);
}

// The order-preserving encoding of a component: V1 EPKs carry it after the hash.
void AppendEncoded(std::string& out, const Component& component) {
  if (component.marker == Marker::kNumber) {
    AppendEncodedNumber(out, component.number);
    return;
  }
  PutMarker(out, component.marker);
  if (component.marker != Marker::kString) return;
  // Bytes move up by one so that 0x00 can end the string and shorter strings sort first.
  const std::string& text = component.text;
  bool whole = text.size() <= kMaxWholeEncodedStringBytes;
  size_t kept = whole ? text.size() : kMaxWholeEncodedStringBytes + 1;
  for (size_t index = 0; index < kept; ++index) {
    auto byte = static_cast<uint8_t>(text[index]);
    PutByte(out, byte == 0xFF ? byte : static_cast<uint8_t>(byte + 1));
  }
  if (whole) PutByte(out, 0x00);
}

std::string ToHex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789ABCDEF";
  std::string hex;
  hex.reserve(bytes.size() * 2);
  for (char c : bytes) {
    auto byte = static_cast<uint8_t>(c);
    hex += kDigits[byte >> 4];
    hex += kDigits[byte & 0x0F];
  }
  return hex;
}

std::optional<uint8_t> HexDigitValue(char digit) {
  if (digit >= '0' && digit <= '9') return digit - '0';
  if (digit >= 'A' && digit <= 'F') return digit - 'A' + 10;
  if (digit >= 'a' && digit <= 'f') return digit - 'a' + 10;
  return std::nullopt;
}

// The byte at `index` of hex text, or nullopt past its end or on a non-hex digit.
std::optional<uint8_t> HexByteAt(std::string_view hex, size_t index) {
  if (2 * index + 1 >= hex.size()) return std::nullopt;
  auto high = HexDigitValue(hex[2 * index]);
  auto low = HexDigitValue(hex[2 * index + 1]);
  if (!high || !low) return std::nullopt;
  return static_cast<uint8_t>(*high << 4 | *low);
}

std::string EpkV1(const std::vector<PartitionKeyComponent>& components) {
  std::vector<Component> normalized;
  for (const auto& component : components) {
    Component item = Normalize(component);
    if (item.marker == Marker::kString) {
      item.text = TruncateToUtf16Units(item.text, kV1MaxStringUnits);
    }
    normalized.push_back(std::move(item));
  }
  std::string hashed;
  for (const auto& item : normalized) AppendForHashing(hashed, item, kV1StringTerminator);
  std::string encoded;
  AppendEncodedNumber(encoded, static_cast<double>(detail::MurmurHash3X86_32(hashed)));
  for (const auto& item : normalized) AppendEncoded(encoded, item);
  return ToHex(encoded);
}

// The 16 bytes of the 128-bit hash, high half first, with the two reserved top bits cleared.
std::string EpkV2(const std::vector<PartitionKeyComponent>& components) {
  std::string hashed;
  for (const auto& component : components) {
    AppendForHashing(hashed, Normalize(component), kV2StringTerminator);
  }
  detail::Hash128 hash = detail::MurmurHash3X64_128(hashed);
  std::string bytes;
  PutBigEndian64(bytes, hash.h2);
  PutBigEndian64(bytes, hash.h1);
  bytes[0] = static_cast<char>(static_cast<uint8_t>(bytes[0]) & 0x3F);
  return ToHex(bytes);
}

bool UsesV1(const PartitionKeyDefinition& definition) {
  return definition.kind == PartitionKeyKind::kHash && definition.version.value_or(1) == 1;
}

// A V2 boundary: the 128-bit value's bytes, big-endian, without trailing zero bytes ("10", not
// "10000000000000000000000000000000"; both sort alike against every EPK).
std::string FormatV2Boundary(Uint128 value) {
  std::string bytes;
  PutBigEndian64(bytes, static_cast<uint64_t>(value >> 64));
  PutBigEndian64(bytes, static_cast<uint64_t>(value));
  while (!bytes.empty() && bytes.back() == '\0') bytes.pop_back();
  return ToHex(bytes);
}

// A V2 or MultiHash boundary as a point of the 128-bit space: its first 32 hex digits, padded
// with zeros. "" is the bottom and "FF" the end of the space.
std::optional<Uint128> ParseV2Boundary(std::string_view boundary) {
  if (boundary == kMaxEpk) return kV2SpaceEnd;
  Uint128 value = 0;
  for (size_t index = 0; index < kV2HexDigits; ++index) {
    uint8_t digit = 0;
    if (index < boundary.size()) {
      auto parsed = HexDigitValue(boundary[index]);
      if (!parsed) return std::nullopt;
      digit = *parsed;
    }
    value = value << 4 | digit;
  }
  return value;
}

// A V1 boundary as a hash value: "" is 0, "FF" is 2^32, others are encoded numbers.
std::optional<double> ParseV1Boundary(std::string_view boundary) {
  if (boundary == kMinEpk) return 0.0;
  if (boundary == kMaxEpk) return static_cast<double>(kV1SpaceEnd);
  return DecodeEpkNumber(boundary);
}

}  // namespace

std::string EffectivePartitionKey(const PartitionKeyDefinition& definition,
                                  const PartitionKeyValue& value) {
  if (value.components.empty()) return std::string(kMinEpk);
  if (definition.kind == PartitionKeyKind::kMultiHash) {
    std::string epk;
    for (const auto& component : value.components) epk += EpkV2({component});
    return epk;
  }
  return UsesV1(definition) ? EpkV1(value.components) : EpkV2(value.components);
}

std::string EncodeEpkNumber(double number) {
  std::string bytes;
  AppendEncodedNumber(bytes, number);
  return ToHex(bytes);
}

std::optional<double> DecodeEpkNumber(std::string_view hex) {
  if (HexByteAt(hex, 0) != static_cast<uint8_t>(Marker::kNumber)) return std::nullopt;
  auto top = HexByteAt(hex, 1);
  if (!top) return std::nullopt;
  uint64_t ordered = uint64_t{*top} << 56;
  // Eight 7-bit groups fill the 56 bits below the top byte; group bits 7..1 land at `shift`+7..+1.
  int shift = 48;
  for (size_t index = 2; index < 10; ++index, shift -= 7) {
    auto group = HexByteAt(hex, index);
    if (!group) return std::nullopt;
    uint64_t bits = *group & 0xFE;
    ordered |= shift >= 0 ? bits << shift : bits >> -shift;
    if ((*group & 0x01) == 0) return FromOrderedBits(ordered);
  }
  return std::nullopt;  // a ninth group: not an encoding
}

std::vector<std::string> InitialRangeBoundaries(const PartitionKeyDefinition& definition,
                                                int range_count) {
  auto count = static_cast<uint64_t>(std::max(range_count, 1));
  std::vector<std::string> boundaries = {std::string(kMinEpk)};
  for (uint64_t k = 1; k < count; ++k) {
    if (UsesV1(definition)) {
      boundaries.push_back(EncodeEpkNumber(static_cast<double>(kV1SpaceEnd * k / count)));
    } else {
      // floor(k * end / count) without overflowing 128 bits.
      Uint128 threshold = kV2SpaceEnd / count * k + kV2SpaceEnd % count * k / count;
      boundaries.push_back(FormatV2Boundary(threshold));
    }
  }
  boundaries.push_back(std::string(kMaxEpk));
  return boundaries;
}

std::optional<std::string> SplitPoint(const PartitionKeyDefinition& definition,
                                      std::string_view min_inclusive,
                                      std::string_view max_exclusive) {
  std::string point;
  if (UsesV1(definition)) {
    auto low = ParseV1Boundary(min_inclusive);
    auto high = ParseV1Boundary(max_exclusive);
    if (!low || !high || *high <= *low) return std::nullopt;
    // Hash values are integers: a split between two adjacent ones is no split.
    double middle = std::floor((*low + *high) / 2);
    if (middle <= *low) return std::nullopt;
    point = EncodeEpkNumber(middle);
  } else {
    auto low = ParseV2Boundary(min_inclusive);
    auto high = ParseV2Boundary(max_exclusive);
    if (!low || !high || *high <= *low) return std::nullopt;
    Uint128 middle = *low + (*high - *low) / 2;
    if (middle == *low) return std::nullopt;
    point = FormatV2Boundary(middle);
  }
  // Holds by construction; checked so that a caller's odd boundaries never yield a bad range.
  if (point <= min_inclusive || point >= max_exclusive) return std::nullopt;
  return point;
}

namespace detail {
namespace {

uint32_t RotateLeft32(uint32_t x, int bits) { return x << bits | x >> (32 - bits); }
uint64_t RotateLeft64(uint64_t x, int bits) { return x << bits | x >> (64 - bits); }

// Up to eight bytes read as a little-endian integer (the algorithm's block and tail reads).
uint64_t LoadLittleEndian(std::string_view bytes, size_t offset, size_t count) {
  uint64_t value = 0;
  for (size_t index = count; index-- > 0;) {
    value = value << 8 | static_cast<uint8_t>(bytes[offset + index]);
  }
  return value;
}

uint32_t FinalMix32(uint32_t h) {
  h ^= h >> 16;
  h *= 0x85EBCA6B;
  h ^= h >> 13;
  h *= 0xC2B2AE35;
  h ^= h >> 16;
  return h;
}

uint64_t FinalMix64(uint64_t k) {
  k ^= k >> 33;
  k *= 0xFF51AFD7ED558CCDULL;
  k ^= k >> 33;
  k *= 0xC4CEB9FE1A85EC53ULL;
  k ^= k >> 33;
  return k;
}

}  // namespace

uint32_t MurmurHash3X86_32(std::string_view bytes, uint32_t seed) {
  constexpr uint32_t kC1 = 0xCC9E2D51;
  constexpr uint32_t kC2 = 0x1B873593;
  auto scramble = [](uint32_t k) { return RotateLeft32(k * kC1, 15) * kC2; };

  uint32_t h = seed;
  size_t block_end = bytes.size() - bytes.size() % 4;
  for (size_t offset = 0; offset < block_end; offset += 4) {
    h ^= scramble(static_cast<uint32_t>(LoadLittleEndian(bytes, offset, 4)));
    h = RotateLeft32(h, 13) * 5 + 0xE6546B64;
  }
  if (size_t tail = bytes.size() % 4; tail != 0) {
    h ^= scramble(static_cast<uint32_t>(LoadLittleEndian(bytes, block_end, tail)));
  }
  h ^= static_cast<uint32_t>(bytes.size());
  return FinalMix32(h);
}

Hash128 MurmurHash3X64_128(std::string_view bytes, uint64_t seed) {
  constexpr uint64_t kC1 = 0x87C37B91114253D5ULL;
  constexpr uint64_t kC2 = 0x4CF5AD432745937FULL;
  auto scramble1 = [](uint64_t k) { return RotateLeft64(k * kC1, 31) * kC2; };
  auto scramble2 = [](uint64_t k) { return RotateLeft64(k * kC2, 33) * kC1; };

  uint64_t h1 = seed;
  uint64_t h2 = seed;
  size_t block_end = bytes.size() - bytes.size() % 16;
  for (size_t offset = 0; offset < block_end; offset += 16) {
    h1 ^= scramble1(LoadLittleEndian(bytes, offset, 8));
    h1 = (RotateLeft64(h1, 27) + h2) * 5 + 0x52DCE729;
    h2 ^= scramble2(LoadLittleEndian(bytes, offset + 8, 8));
    h2 = (RotateLeft64(h2, 31) + h1) * 5 + 0x38495AB5;
  }
  size_t tail = bytes.size() % 16;
  if (tail > 8) h2 ^= scramble2(LoadLittleEndian(bytes, block_end + 8, tail - 8));
  if (tail > 0) h1 ^= scramble1(LoadLittleEndian(bytes, block_end, std::min<size_t>(tail, 8)));

  h1 ^= bytes.size();
  h2 ^= bytes.size();
  h1 += h2;
  h2 += h1;
  h1 = FinalMix64(h1);
  h2 = FinalMix64(h2);
  h1 += h2;
  h2 += h1;
  return {h1, h2};
}

}  // namespace detail
}  // namespace cosmos::engine
