// One flag per input or output of a node, cleared for each node the stages visit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace cctx {

/// Flags for the `count` inputs or outputs of one node. Up to 64 (every node of a real model but
/// the rare Split into more pieces) they live in one word: clearing them per node costs no call.
/// Byte vectors cleared with assign() took a memset call per node and flag kind, and small
/// vectors of bool a loop, about 15M instructions per 100k nodes between them.
class NodeFlags {
 public:
  NodeFlags() = default;
  explicit NodeFlags(std::size_t count) { reset(count); }

  /// `count` flags, all false.
  void reset(std::size_t count) {
    count_ = count;
    word_ = 0;
    if (count > kWordBits) wide_.assign(count, false);
  }
  std::size_t size() const { return count_; }
  bool operator[](std::size_t k) const {
    return count_ <= kWordBits ? ((word_ >> k) & 1U) != 0 : static_cast<bool>(wide_[k]);
  }
  void set(std::size_t k, bool value = true) {
    if (count_ <= kWordBits) {
      const std::uint64_t bit = std::uint64_t{1} << k;
      word_ = value ? word_ | bit : word_ & ~bit;
    } else {
      wide_[k] = value;
    }
  }
  void set_all() {
    if (count_ <= kWordBits) {
      word_ = count_ == kWordBits ? ~std::uint64_t{0} : (std::uint64_t{1} << count_) - 1;
    } else {
      wide_.assign(count_, true);
    }
  }

 private:
  static constexpr std::size_t kWordBits = 64;
  std::size_t count_ = 0;
  std::uint64_t word_ = 0;
  std::vector<bool> wide_;  ///< used only above kWordBits flags
};

}  // namespace cctx
