// Read order: the order in which queries and the read feed return a container's documents, as
// the service returns them — physical partition after physical partition, in effective-key
// order, and within one in resource-id order, which is the order the documents were created in
// (their storage seq; a replace keeps it).
//
// A read is cut into segments, one per physical partition it reaches, each holding the parts of
// the read's scopes inside that partition. A continuation names the seq of a document and the
// bounds of the segment it was read in: segments before those bounds were read already, those
// after them are still to read, and those inside them (the same partition, or its children after
// a split) resume at that seq, together.
// Thread-safety: plain values and pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/json.h"
#include "engine/partitioning/partitioning.h"
#include "storage/store.h"

namespace cosmos::engine {

// The part of a read inside one physical partition.
struct ReadSegment {
  std::string min_key;  // the partition's bounds, as effective keys ("" and "FF" at the ends)
  std::string max_key;
  std::vector<storage::DocumentScope> scopes;  // disjoint, in key order, all inside the bounds

  // Whether a document stored under `partition_key` falls in one of the scopes.
  bool Holds(const std::string& partition_key) const;
};

// The segments of a read over `scopes` (disjoint, in key order) of a container routed by
// `routing`, in effective-key order. Partitions the scopes do not reach have no segment.
std::vector<ReadSegment> ReadSegments(const RoutingMap& routing, const std::vector<storage::DocumentScope>& scopes);

// A document's place in read order. As JSON it is [seq, min_key, max_key], whose order is the
// seq's: a split changes the bounds but never which of two documents comes first.
struct ReadPosition {
  int64_t seq = 0;
  std::string min_key;
  std::string max_key;

  Json ToJson() const;
  // nullopt for anything that is not such a triple.
  static std::optional<ReadPosition> FromJson(const Json& json);
};

// A segment to read, from the seq given (0: all of it).
struct SegmentRead {
  ReadSegment segment;
  int64_t from_seq = 0;
};

// What is left of a read that resumes at `resume` (inclusive; nullopt: a read from the start).
// Segments before the position's bounds are dropped; those inside them (its partition, or the
// children a split made of it) become one segment with its bounds, their documents merged by
// seq as that partition held them, read from its seq; those after it are read whole.
std::vector<SegmentRead> SegmentsToRead(const std::vector<ReadSegment>& segments,
                                        const std::optional<ReadPosition>& resume);

}  // namespace cosmos::engine
