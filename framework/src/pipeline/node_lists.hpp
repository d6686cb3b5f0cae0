// Lists per node of the main graph, filled in node order into one array.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <vector>

#include "cctx/graph.hpp"

namespace cctx {

/// A list per node of the main graph (values, in-place decisions), filled in node order into one
/// array: a million-node graph makes no allocation per node, and a list is read as a span.
template <class Item>
class NodeLists {
 public:
  /// Empties every list; `count` lists are expected.
  void reset(std::size_t count) {
    ends_.clear();
    ends_.reserve(count);
    items_.clear();
  }
  /// Appends an item to node n's list. n never decreases from one call to the next.
  void push(NodeId n, const Item& item) {
    close_before(n);
    items_.push_back(item);
  }
  /// Ends filling: the nodes after the last push, up to `count`, get empty lists.
  void finish(std::size_t count) { close_before(count); }

  std::size_t size() const { return ends_.size(); }
  std::span<const Item> operator[](NodeId n) const {
    const std::uint32_t begin = n == 0 ? 0 : ends_[n - 1];
    return std::span<const Item>(items_.data() + begin, ends_[n] - begin);
  }
  /// operator[] that throws std::out_of_range past the last list.
  std::span<const Item> at(NodeId n) const {
    if (n >= ends_.size()) throw std::out_of_range("NodeLists::at");
    return (*this)[n];
  }

 private:
  void close_before(std::size_t n) {
    while (ends_.size() < n) ends_.push_back(static_cast<std::uint32_t>(items_.size()));
  }
  std::vector<std::uint32_t> ends_;  ///< per node: one past its last entry in items_
  std::vector<Item> items_;
};
using NodeValueLists = NodeLists<ValueId>;

}  // namespace cctx
