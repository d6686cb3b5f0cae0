#include "text/nearest_word.hpp"

#include <algorithm>
#include <numeric>
#include <vector>

namespace cctx::detail {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  // Three rolling rows: the transposition case looks two rows back.
  std::vector<std::size_t> before(b.size() + 1), prev(b.size() + 1), cur(b.size() + 1);
  std::iota(prev.begin(), prev.end(), std::size_t{0});
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        cur[j] = std::min(cur[j], before[j - 2] + 1);
      }
    }
    before.swap(prev);
    prev.swap(cur);
  }
  return prev[b.size()];
}

std::string_view closest(std::string_view word, std::span<const std::string_view> choices) {
  std::string_view best;
  std::size_t best_distance = 3;  // suggestions only for distance <= 2
  for (std::string_view choice : choices) {
    const std::size_t d = edit_distance(word, choice);
    // A distance as large as the word itself means "replace everything": no real resemblance.
    if (d < best_distance && d < word.size()) {
      best = choice;
      best_distance = d;
    }
  }
  return best;
}

}  // namespace cctx::detail
