// Size limits applied to every model and expression before any analysis work, so that hostile or
// broken input ends as a clear error instead of an allocation failure or a stack overflow. The
// defaults fit a 24 GiB machine with room to spare; a profile raises them (`limits:`).
#pragma once

#include <cstdint>

namespace cctx {

struct Limits {
  /// Bytes of the model file; protobuf cannot parse more than 2 GiB - 1 in any case.
  std::int64_t file_bytes = std::int64_t{1} << 30;
  /// Nodes of the model, subgraphs included.
  std::int64_t nodes = 5'000'000;
  /// Rank of any declared value or initializer.
  std::int64_t rank = 64;
  /// Nesting of subgraphs (If/Loop/Scan bodies inside bodies); the graph view recurses once per
  /// level, hence the hard ceiling kMaxSubgraphDepth.
  std::int64_t subgraph_depth = 64;
  /// Characters of one expression text (a dim_param, `cctx eval`'s argument).
  std::int64_t expression_chars = 4096;
  /// Assignments one command evaluates (the product of the `--eval` lists, or the profile's
  /// `report.evaluate`): each one is a column of the tables and a curve of the figures, and 10^8
  /// of them filled 24 GB before anything was printed.
  std::int64_t assignments = 10'000;
};

/// Ceilings of the limits a profile may set.
inline constexpr std::int64_t kMaxFileBytes = (std::int64_t{1} << 31) - 1;
inline constexpr std::int64_t kMaxSubgraphDepth = 2000;

}  // namespace cctx
