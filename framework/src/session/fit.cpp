// cctx fit (fit.hpp): doubling then bisection over Session::evaluate.
#include "cctx/fit.hpp"

#include <algorithm>
#include <exception>
#include <map>

#include "cctx/errors.hpp"
#include "cctx/graph.hpp"

namespace cctx {

namespace {

/// Above this the search stops: a size past 2^62 overflows every byte count anyway.
constexpr std::int64_t kLargestTried = std::int64_t{1} << 62;

class Search {
 public:
  Search(const Session& session, const FitRequest& request)
      : session_(session), request_(request) {}

  FitPoint at(std::int64_t value) {
    if (const auto it = done_.find(value); it != done_.end()) return it->second;
    ++evaluations_;
    FitPoint p;
    p.value = value;
    Assignment a = request_.fixed;
    a[request_.vary] = value;
    try {
      const Evaluation ev = session_.evaluate({a}, request_.source);
      p.assignment = ev.assignments[0];
      p.figures = ev.context->evaluate_peak(p.assignment);
      // Saturating: a headroom past 2^63 - 1 is more than any budget.
      const std::int64_t r = p.figures.reserve_bytes;
      const std::int64_t share =
          r / 100 * request_.headroom_percent + r % 100 * request_.headroom_percent / 100;
      std::int64_t need = 0;
      p.fits = !__builtin_add_overflow(request_.headroom_bytes, share, &p.headroom) &&
               !__builtin_add_overflow(r, p.headroom, &need) && need <= request_.budget;
      if (p.figures.run_node >= 0) {
        p.peak_node = describe_node(ev.context->graph(), static_cast<NodeId>(p.figures.run_node));
      }
    } catch (const ExprError& e) {
      // An overflow is more than any budget; other evaluation failures say why.
      p.assignment = a;
      p.refused = e.what();
    } catch (const Error& e) {
      p.assignment = a;
      p.refused = e.what();
      p.error = std::current_exception();
    }
    done_.emplace(value, p);
    return p;
  }
  int evaluations() const { return evaluations_; }

 private:
  const Session& session_;
  const FitRequest& request_;
  std::map<std::int64_t, FitPoint> done_;
  int evaluations_ = 0;
};

std::string bound_text(const SymbolInfo& info) {
  std::string text = info.name + " <= " + std::to_string(info.bounds.hi) + ", its upper bound";
  if (!info.narrowed_by.empty()) return text + " (" + info.narrowed_by + ")";
  return text + " (the profile's symbols or --bounds)";
}

}  // namespace

FitResult fit(const Session& session, const FitRequest& request) {
  const ComputeContext& ctx = session.symbolic();
  FitResult out;
  out.vary = request.vary;
  out.budget = request.budget;
  out.headroom_bytes = request.headroom_bytes;
  out.headroom_percent = request.headroom_percent;
  out.fixed = request.fixed;
  if (request.fixed.count(request.vary) != 0) {
    throw Error(request.source + ": '" + request.vary + "' is both varied and given a value",
                ExitCode::kUsage);
  }
  const SymbolInfo* info = ctx.pool().find_symbol(request.vary);
  // A name only the relations read (`--let past_seq=context-1`).
  const bool parameter = session.read_by_relations(request.vary);
  if (info == nullptr && !parameter) {
    throw Error(request.source + ": the model has no symbol '" + request.vary + "'",
                ExitCode::kUsage);
  }
  out.domain = info != nullptr ? info->bounds : kDimBounds;
  const std::int64_t lo = std::max<std::int64_t>(out.domain.lo, 0);
  const std::int64_t hi = std::min(out.domain.hi, kLargestTried);

  if (info != nullptr) {
    const ReserveTrend trend = ctx.reserve_trend(request.vary);
    out.proved_monotone = trend.nondecreasing;
    out.method = trend.nondecreasing ? "proved: the reserve never shrinks as " + request.vary +
                                           " grows, so every smaller value fits too"
                                     : "not proved monotone (" + trend.reason +
                                           "): the search bisects and checks the values it returns";
  } else {
    out.method = "'" + request.vary +
                 "' is a parameter of the relations, not a symbol of the model: not proved "
                 "monotone; the search bisects and checks the values it returns";
  }

  Search search(session, request);
  FitPoint first = search.at(lo);
  // Refused at the smallest value: the request itself is wrong (a symbol without a value, one
  // the model lacks); say so as analyze --eval would.
  if (first.error) std::rethrow_exception(first.error);
  if (!first.fits) {
    out.next = first;
    out.evaluations = search.evaluations();
    if (!first.refused.empty()) out.limited_by = first.refused;
    return out;
  }
  // Doubling: the first value over the budget (or refused), or the upper bound.
  FitPoint good = first;
  std::optional<FitPoint> bad;
  while (good.value < hi) {
    const std::int64_t probe = good.value == 0 ? 1 : std::min(hi, good.value * 2);
    FitPoint p = search.at(probe);
    if (!p.fits) {
      bad = p;
      break;
    }
    good = p;
  }
  // Bisection between the last value within the budget and the first one over it.
  if (bad) {
    while (bad->value - good.value > 1) {
      const std::int64_t mid = good.value + (bad->value - good.value) / 2;
      FitPoint p = search.at(mid);
      if (p.fits) {
        good = p;
      } else {
        bad = p;
      }
    }
    out.next = *bad;
    if (!bad->refused.empty()) out.limited_by = bad->refused;
  } else if (hi == kLargestTried && out.domain.hi > kLargestTried) {
    out.unbounded = true;
    out.limited_by = "the reserve stays within the budget up to " + request.vary + " = 2^62";
  } else if (info != nullptr) {
    out.limited_by = bound_text(*info);
  }
  out.best = good;
  out.evaluations = search.evaluations();
  return out;
}

std::vector<FitPoint> sweep(const Session& session, const FitRequest& request,
                            const std::vector<std::int64_t>& values) {
  Search search(session, request);
  std::vector<FitPoint> points;
  points.reserve(values.size());
  for (const std::int64_t v : values) points.push_back(search.at(v));
  return points;
}

}  // namespace cctx
