// Benchmarks of the expression engine (expressions.md section 10). Targets: add/mul of linear
// expressions with <= 8 terms < 250 ns median (interning included), memo hit < 30 ns, summing
// 100k byte-size terms < 50 ms.
#include <benchmark/benchmark.h>

#include <random>
#include <string>
#include <vector>

#include "cctx/expr.hpp"

namespace {

using cctx::Expr;
using cctx::ExprPool;

/// `count` random linear expressions over 8 symbols: c1*s1 + ... + c8*s8 + c0.
std::vector<Expr> linear_exprs(ExprPool& pool, int count, int terms, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Expr> syms;
  for (int i = 0; i < 8; ++i) syms.push_back(pool.symbol("s" + std::to_string(i)));
  std::vector<Expr> out;
  out.reserve(static_cast<std::size_t>(count));
  std::vector<Expr> parts;
  for (int k = 0; k < count; ++k) {
    parts.clear();
    for (int t = 0; t < terms; ++t) {
      parts.push_back(pool.mul(pool.integer(static_cast<std::int64_t>(rng() % 1000) + 1),
                               syms[static_cast<std::size_t>(t)]));
    }
    parts.push_back(pool.integer(static_cast<std::int64_t>(rng() % 100000)));
    out.push_back(pool.sum(parts));
  }
  return out;
}

// Memo hit: the same operation again is one probe of the direct-mapped table.
void BM_MemoHit(benchmark::State& state) {
  ExprPool pool;
  const Expr n = pool.symbol("N");
  const Expr two = pool.integer(2);
  pool.mul(two, n);
  for (auto _ : state) benchmark::DoNotOptimize(pool.mul(two, n));
}
BENCHMARK(BM_MemoHit)->Repetitions(5)->ReportAggregatesOnly(true);

// Interning a new node: `N + i` for a fresh constant i each time (memo miss, table insert).
void BM_Intern(benchmark::State& state) {
  ExprPool pool;
  const Expr n = pool.symbol("N");
  std::int64_t i = 100000;
  for (auto _ : state) benchmark::DoNotOptimize(pool.add(n, pool.integer(++i)));
}
BENCHMARK(BM_Intern)->Repetitions(5)->ReportAggregatesOnly(true);

// add of two linear expressions with 4 or 8 terms each, interning included: 4096 operands give
// 16M distinct pairs, so every result is a memo miss and a new node; operands stay in cache
// as they would during shape inference.
void BM_AddLinear(benchmark::State& state) {
  ExprPool pool;
  const auto exprs = linear_exprs(pool, 4096, static_cast<int>(state.range(0)), 7);
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(pool.add(exprs[i & 4095], exprs[(i + 1 + (i >> 12)) & 4095]));
    ++i;
  }
}
BENCHMARK(BM_AddLinear)->Arg(4)->Arg(8)->Repetitions(5)->ReportAggregatesOnly(true);

// sub, likewise.
void BM_SubLinear(benchmark::State& state) {
  ExprPool pool;
  const auto exprs = linear_exprs(pool, 4096, 8, 9);
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(pool.sub(exprs[i & 4095], exprs[(i + 1 + (i >> 12)) & 4095]));
    ++i;
  }
}
BENCHMARK(BM_SubLinear)->Repetitions(5)->ReportAggregatesOnly(true);

// mul of a linear expression by a monomial (the shape of byte sizes: dims times element size).
void BM_MulLinearByMonomial(benchmark::State& state) {
  ExprPool pool;
  const auto exprs = linear_exprs(pool, 4096, static_cast<int>(state.range(0)), 11);
  std::vector<Expr> monos;
  for (int k = 0; k < 4096; ++k) {
    monos.push_back(pool.mul(pool.integer(k + 2), pool.symbol("B" + std::to_string(k % 64))));
  }
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(pool.mul(exprs[i & 4095], monos[(i + 1 + (i >> 12)) & 4095]));
    ++i;
  }
}
BENCHMARK(BM_MulLinearByMonomial)->Arg(4)->Arg(8)->Repetitions(5)->ReportAggregatesOnly(true);

// mul of two linear expressions (full expansion: up to 81 products, 45 distinct terms).
void BM_MulPoly(benchmark::State& state) {
  ExprPool pool;
  const auto exprs = linear_exprs(pool, 4096, static_cast<int>(state.range(0)), 13);
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(pool.mul(exprs[i & 4095], exprs[(i + 1 + (i >> 12)) & 4095]));
    ++i;
  }
}
BENCHMARK(BM_MulPoly)->Arg(2)->Arg(4)->Arg(8)->Repetitions(5)->ReportAggregatesOnly(true);

// Parsing text into canonical form and printing it.
void BM_ParsePrint(benchmark::State& state) {
  ExprPool pool;
  const std::string text = "max(64+N*16, 48*N + 80) // 2 + (H-1)//2 + 1 + CeilToInt(W, 4)*C";
  for (auto _ : state) benchmark::DoNotOptimize(pool.print(pool.parse(text)).size());
}
BENCHMARK(BM_ParsePrint)->Repetitions(5)->ReportAggregatesOnly(true);

// Printing a new node (text is built once per node, then cached).
void BM_PrintNew(benchmark::State& state) {
  ExprPool pool;
  const auto exprs = linear_exprs(pool, 1 << 16, 8, 17);
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(pool.print(exprs[i]).size());
    if (++i == exprs.size()) {
      state.PauseTiming();
      // Every node now has cached text: continue on the cached path.
      i = 0;
      state.ResumeTiming();
    }
  }
}
BENCHMARK(BM_PrintNew)->Iterations(1 << 16);

// prove_ge on new differences: the interval step (64*N+64+i >= 48*N+80) ...
void BM_ProveGeInterval(benchmark::State& state) {
  ExprPool pool;
  const Expr a = pool.parse("64*N+64");
  const Expr b = pool.parse("48*N+80");
  std::int64_t i = 0;
  for (auto _ : state) benchmark::DoNotOptimize(pool.prove_ge(pool.add(a, pool.integer(++i)), b));
}
BENCHMARK(BM_ProveGeInterval)->Repetitions(5)->ReportAggregatesOnly(true);

// ... and the monotonicity step (N*N + i >= 2*N).
void BM_ProveGeMonotone(benchmark::State& state) {
  ExprPool pool;
  const Expr a = pool.parse("N*N");
  const Expr b = pool.parse("2*N");
  std::int64_t i = 0;
  for (auto _ : state) benchmark::DoNotOptimize(pool.prove_ge(pool.add(a, pool.integer(++i)), b));
}
BENCHMARK(BM_ProveGeMonotone)->Repetitions(5)->ReportAggregatesOnly(true);

// max_of over 1000 candidate peaks in a fresh pool (every proof is new).
void BM_MaxOf1000(benchmark::State& state) {
  for (auto _ : state) {
    state.PauseTiming();
    auto pool = std::make_unique<ExprPool>();
    std::vector<Expr> args;
    const Expr n = pool->symbol("N");
    const Expr m = pool->symbol("M");
    for (int k = 0; k < 1000; ++k) {
      args.push_back(pool->add(pool->add(pool->mul(pool->integer(k % 37 + 1), n),
                                         pool->mul(pool->integer(k % 11 + 1), m)),
                               pool->integer(1000 - k)));
    }
    state.ResumeTiming();
    benchmark::DoNotOptimize(pool->max(args));
    state.PauseTiming();
    pool.reset();
    state.ResumeTiming();
  }
}
BENCHMARK(BM_MaxOf1000)->Unit(benchmark::kMicrosecond);

// A running total of 100k byte-size terms 16*N*k (k = 1..100000), as the memory pass does.
void BM_Sum100k(benchmark::State& state) {
  for (auto _ : state) {
    state.PauseTiming();
    auto pool = std::make_unique<ExprPool>();
    const Expr n = pool->symbol("N");
    state.ResumeTiming();
    Expr total = pool->integer(0);
    for (std::int64_t k = 1; k <= 100000; ++k) {
      total = pool->add(total, pool->mul(pool->integer(16 * k), n));
    }
    benchmark::DoNotOptimize(total);
    state.PauseTiming();
    pool.reset();
    state.ResumeTiming();
  }
}
BENCHMARK(BM_Sum100k)->Unit(benchmark::kMillisecond);

// 10^6 distinct nodes: time and the arena's footprint (expressions.md "Performance requirements
// (benchmark targets, not timed tests)": < 150 MB).
void BM_MillionNodes(benchmark::State& state) {
  for (auto _ : state) {
    auto pool = std::make_unique<ExprPool>();
    const Expr n = pool->symbol("N");
    const Expr m = pool->symbol("M");
    for (std::int64_t k = 1; pool->node_count() < 1000000; ++k) {
      pool->add(pool->mul(pool->integer(k), n), m);
    }
    state.counters["nodes"] = static_cast<double>(pool->node_count());
  }
}
BENCHMARK(BM_MillionNodes)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace
