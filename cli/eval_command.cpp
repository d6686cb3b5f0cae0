// `cctx eval`.
#include <iostream>
#include <map>

#include "cctx/errors.hpp"
#include "cctx/expr.hpp"
#include "cctx/limits.hpp"
#include "cctx/safe_text.hpp"
#include "cli_common.hpp"

namespace cctx::cli {

namespace {

struct EvalArgs {
  std::string expression;
  std::vector<std::string> assignments;
  std::vector<std::string> bounds;
};

void run_eval(const EvalArgs& args) {
  ExprPool pool;
  for (const std::string& b : args.bounds) {
    auto [name, interval] = parse_bounds(b);
    pool.declare_symbol(name, interval);
  }
  // The same ceiling as a model's dim_param: the parser is linear, but its messages and the
  // interned result are not worth a megabyte of text.
  const std::int64_t max_chars = Limits{}.expression_chars;
  if (static_cast<std::int64_t>(args.expression.size()) > max_chars) {
    throw Error("expression of " + std::to_string(args.expression.size()) + " characters, above " +
                    std::to_string(max_chars) + " (limits.expression_chars)",
                ExitCode::kBadInput);
  }
  std::map<std::string, Expr, std::less<>> values;
  Assignment numbers;
  for (const std::string& a : args.assignments) {
    const std::size_t eq = a.find('=');
    if (eq == std::string::npos || eq == 0)
      throw Error("'" + a + "': expected SYM=V", ExitCode::kUsage);
    const std::string item = a.substr(eq + 1);
    const std::optional<std::int64_t> v = parse_integer(item);
    if (!v) throw Error("'" + a + "': '" + item + "' is not an integer", ExitCode::kUsage);
    values[a.substr(0, eq)] = pool.integer(*v);
    numbers[a.substr(0, eq)] = *v;
  }
  Expr e;
  try {
    e = pool.parse(args.expression);
  } catch (const ExprError& err) {
    // The definition of a floating-point size (expressions.md 4.5, `floor(float32(h)*0.5f)`) is
    // not part of the symbolic grammar: it is evaluated as written, given every symbol's value.
    if (err.kind() == ExprError::Kind::kSyntax) {
      try {
        std::cout << evaluate_expression(args.expression, numbers) << "\n";
        return;
      } catch (const ExprError& direct) {
        if (direct.kind() == ExprError::Kind::kUnknownSymbol && numbers.empty()) {
          throw Error("'" + safe_text::terminal(args.expression) +
                          "' computes in floating point: it is evaluated, not simplified; give "
                          "every symbol a value (SYM=V)",
                      ExitCode::kBadInput);
        }
        if (direct.kind() != ExprError::Kind::kSyntax) {
          throw Error(std::string(direct.what()), ExitCode::kBadInput);
        }
      }
    }
    throw Error(std::string(err.what()), ExitCode::kBadInput);
  }
  if (!numbers.empty()) {
    // Every symbol assigned: the exact value. Substituting first would print the symbol of a
    // size cap (expressions.md "Size cap") that a large product was interned as, where eval()
    // expands its definition.
    try {
      std::cout << pool.eval(e, numbers) << "\n";
      return;
    } catch (const ExprError&) {
      // A symbol left unassigned, or a value the substitution below reports in its own words.
    }
  }
  try {
    Expr result = values.empty() ? e : pool.substitute(e, values);
    std::cout << safe_text::terminal(pool.print(result)) << "\n";
  } catch (const ExprError& err) {
    std::string what = err.what();
    // A divisor that only the values make 0 ('N//(M-1)' M=1): the quoted text is the divided
    // form the substitution reached, so say which values led there.
    if (err.kind() == ExprError::Kind::kDivisionByZero ||
        err.kind() == ExprError::Kind::kModuloByZero) {
      std::string with;
      for (const std::string& a : args.assignments) with += (with.empty() ? "" : " ") + a;
      what += " (after substituting " + with + ")";
    }
    throw Error(what, ExitCode::kBadInput);
  }
}

}  // namespace

void add_eval_command(CLI::App& app) {
  auto args = std::make_shared<EvalArgs>();
  CLI::App* cmd = app.add_subcommand(
      "eval", "Simplify an expression, or evaluate it when every symbol is assigned");
  cmd->add_option("expression", args->expression, "Expression, e.g. '(4*N+7)//8'")->required();
  cmd->add_option("assignments", args->assignments, "SYM=V values to substitute");
  cmd->add_option("--bounds", args->bounds, "Symbol bounds SYM=LO:HI (repeatable)")
      ->allow_extra_args(false);
  cmd->callback([args] { run_eval(*args); });
}

}  // namespace cctx::cli
