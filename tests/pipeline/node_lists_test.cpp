// NodeLists (pipeline/analysis_state.hpp): one list per node in one array, filled in node order.
#include <gtest/gtest.h>

#include <vector>

#include "pipeline/analysis_state.hpp"

namespace cctx {
namespace {

std::vector<ValueId> list(const NodeValueLists& lists, NodeId n) {
  const auto span = lists[n];
  return {span.begin(), span.end()};
}

TEST(NodeLists, NodesWithoutItemsGetEmptyLists) {
  NodeValueLists lists;
  lists.reset(6);
  lists.push(1, 10);
  lists.push(1, 11);
  lists.push(4, 40);
  lists.finish(6);
  ASSERT_EQ(lists.size(), 6u);
  EXPECT_TRUE(lists[0].empty());
  EXPECT_EQ(list(lists, 1), (std::vector<ValueId>{10, 11}));
  EXPECT_TRUE(lists[2].empty());
  EXPECT_TRUE(lists[3].empty());
  EXPECT_EQ(list(lists, 4), (std::vector<ValueId>{40}));
  EXPECT_TRUE(lists[5].empty());
  EXPECT_THROW(lists.at(6), std::out_of_range);
  EXPECT_EQ(lists.at(4).size(), 1u);
}

TEST(NodeLists, ResetEmptiesEverything) {
  NodeValueLists lists;
  lists.reset(2);
  lists.push(0, 1);
  lists.finish(2);
  lists.reset(3);
  lists.push(2, 7);
  lists.finish(3);
  ASSERT_EQ(lists.size(), 3u);
  EXPECT_TRUE(lists[0].empty());
  EXPECT_TRUE(lists[1].empty());
  EXPECT_EQ(list(lists, 2), (std::vector<ValueId>{7}));
}

TEST(NodeLists, NoItemAtAll) {
  NodeLists<InplaceDecision> lists;
  lists.reset(0);
  lists.finish(0);
  EXPECT_EQ(lists.size(), 0u);
  lists.reset(3);
  lists.finish(3);
  EXPECT_EQ(lists.size(), 3u);
  for (NodeId n = 0; n < 3; ++n) EXPECT_TRUE(lists[n].empty());
}

}  // namespace
}  // namespace cctx
