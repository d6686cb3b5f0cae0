// NodeFlags: a node's per-input and per-output flags in one word.
#include "pipeline/node_flags.hpp"

#include <gtest/gtest.h>

#include "stage_test_support.hpp"

namespace cctx {
namespace {

using namespace stage_test;

TEST(NodeFlags, OneWordUpTo64FlagsAndAVectorAbove) {
  for (const std::size_t count : {0, 1, 3, 63, 64, 65, 130}) {
    NodeFlags flags(count);
    ASSERT_EQ(flags.size(), count);
    for (std::size_t k = 0; k < count; ++k) EXPECT_FALSE(flags[k]) << count;
    for (std::size_t k = 0; k < count; k += 3) flags.set(k);
    for (std::size_t k = 0; k < count; ++k) EXPECT_EQ(flags[k], k % 3 == 0) << count << " " << k;
    if (count > 0) {
      flags.set(0, false);
      EXPECT_FALSE(flags[0]);
    }
    flags.set_all();
    for (std::size_t k = 0; k < count; ++k) EXPECT_TRUE(flags[k]) << count << " " << k;
    flags.reset(count);  // cleared again for the next node
    for (std::size_t k = 0; k < count; ++k) EXPECT_FALSE(flags[k]) << count << " " << k;
  }
}

}  // namespace
}  // namespace cctx
