// The effective partition key (EPK): the hash of a partition-key value, as uppercase hex, that
// decides which physical partition holds a document. Computed as the service and the .NET/Java
// SDKs compute it (shared/reference/sdk-wire.md §1), checked against the published vectors in
// tests/effective_partition_key_test.cc. Also the hash-space arithmetic behind partition key
// range boundaries: where a container's first ranges start and where a range splits.
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/partitioning/partition_key.h"

namespace cosmos::engine {

// The EPK of a value, by the definition's scheme:
//   Hash V1 (version absent or 1): "05" + the encoded 32-bit hash, then each component encoded;
//   Hash V2 (version 2): 32 hex digits, always below "40";
//   MultiHash: the V2 EPK of each component on its own, concatenated (32 digits per level).
// A MultiHash value may hold fewer components than the definition has paths (a prefix): its EPK
// is then the prefix of the EPK of every full key below it. No components at all gives "".
std::string EffectivePartitionKey(const PartitionKeyDefinition& definition,
                                  const PartitionKeyValue& value);

// The order-preserving binary encoding of a number, marker included, as hex: 5 -> "05C014",
// 0 -> "058000". Ordinal order of the text is numeric order (-0 encodes as 0).
std::string EncodeEpkNumber(double number);

// Reads back the encoded number at the start of `hex` (anything after it is ignored, so a V1 EPK
// gives its hash). Returns nullopt unless `hex` starts with a complete, well-formed encoding.
std::optional<double> DecodeEpkNumber(std::string_view hex);

// The range_count + 1 boundaries of a new container's ranges: "" first, "FF" last, and between
// them thresholds that split the definition's hash space evenly (V1: 32-bit hash values, encoded;
// V2 and MultiHash: fractions of ["", "40"), e.g. "10", "20", "30" for four ranges).
// REQUIRES: range_count >= 1 (smaller counts are treated as 1).
std::vector<std::string> InitialRangeBoundaries(const PartitionKeyDefinition& definition,
                                                int range_count);

// The boundary that halves the hash space of [min_inclusive, max_exclusive): "" stands for the
// bottom of the space and "FF" for its top. Only the first 32 hex digits of a V2 or MultiHash
// boundary count. The result lies strictly between the two in ordinal order. Returns nullopt
// when the range is too narrow to split or a boundary cannot be read.
std::optional<std::string> SplitPoint(const PartitionKeyDefinition& definition,
                                      std::string_view min_inclusive,
                                      std::string_view max_exclusive);

namespace detail {

// MurmurHash3 (Austin Appleby), over raw bytes; the EPK uses seed 0.
uint32_t MurmurHash3X86_32(std::string_view bytes, uint32_t seed = 0);

struct Hash128 {
  uint64_t h1 = 0;  // the low half of the 128-bit value
  uint64_t h2 = 0;  // the high half
};
Hash128 MurmurHash3X64_128(std::string_view bytes, uint64_t seed = 0);

}  // namespace detail
}  // namespace cosmos::engine
