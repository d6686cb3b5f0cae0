// What a node declares about in-place reuse: its in-place policy's aliases and may_reuse pairs,
// or the structural fallback's. Every buffer planner reads them; each applies its own conditions.
#pragma once

#include <boost/container/small_vector.hpp>
#include <cstdint>
#include <string>
#include <utility>

#include "pipeline/analysis_state.hpp"
#include "pipeline/expr_bridge.hpp"

namespace cctx {

// Per-node declarations live inline: most nodes declare a pair or two, and an allocation per
// node was a visible share of the in-place stage.
using IndexPairs = boost::container::small_vector<std::pair<std::uint32_t, std::uint32_t>, 4>;

/// IInplaceSink::write_into: output `output` is written into input `input`'s buffer, which has
/// room for `capacity` bytes.
struct CapacityWrite {
  std::uint32_t output = 0;
  std::uint32_t input = 0;
  Expr capacity;
};

struct InplaceDeclarations {
  IndexPairs aliases;    // (output, input)
  IndexPairs may_reuse;  // (output, input)
  boost::container::small_vector<CapacityWrite, 2> writes_into;
  std::string error;
};

/// Fills `d` (cleared first) with node n's declarations: its policy's, or with
/// `inplace.fallback: structural` every (output, input) pair of an op without one; none with
/// `inplace.enabled: false`. A failing policy declares nothing, with a warning naming the node.
void collect_inplace_declarations(Analysis& s, const ShapeResult& shapes, ExprBridge& bridge,
                                  NodeId n, InplaceDeclarations& d);

}  // namespace cctx
