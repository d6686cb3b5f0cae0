// `cctx diff`: what changed between two analysis reports (see report.hpp, diff_reports).
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "cctx/errors.hpp"
#include "cctx/report.hpp"

namespace cctx {

namespace {

using Json = nlohmann::ordered_json;  // what the diff writes
using In = nlohmann::json;            // what it reads

void check_format(const DiffSide& side) {
  const In& r = side.report;
  if (!r.is_object() || r.value("format", "") != "cctx.analysis/1" || !r.contains("nodes") ||
      !r["nodes"].is_array()) {
    throw Error(side.label +
                ": not a cctx.analysis/1 report (write one with `cctx analyze MODEL "
                "--format json`)");
  }
}

/// The amounts the diff reads, checked before any is read: an integer or an expression's text.
/// Anything else (a float, a missing key) would otherwise read as 0 and show a change that is
/// not there.
void check_amounts(const DiffSide& side) {
  const In& r = side.report;
  auto fail = [&](const std::string& where, const In* got) {
    throw Error(side.label + ": not a cctx.analysis/1 report: " + where + " is " +
                (got == nullptr ? std::string("missing") : got->dump()) +
                " (an integer or an expression's text expected)");
  };
  auto amount_at = [&](const In& object, const char* key, const std::string& where, bool optional) {
    if (!object.is_object()) fail(where, &object);
    const auto it = object.find(key);
    if (it == object.end()) {
      if (!optional) fail(where + "." + key, nullptr);
      return;
    }
    if (!it->is_number_integer() && !it->is_string()) fail(where + "." + key, &*it);
  };
  const auto peak = r.find("peak");
  if (peak == r.end()) fail("peak", nullptr);
  amount_at(*peak, "total_bytes", "peak", false);
  const In& nodes = r["nodes"];
  for (std::size_t k = 0; k < nodes.size(); ++k) {
    const std::string where = "nodes[" + std::to_string(k) + "]";
    if (!nodes[k].is_object()) fail(where, &nodes[k]);
    const auto memory = nodes[k].find("memory");
    if (memory == nodes[k].end()) fail(where + ".memory", nullptr);
    amount_at(*memory, "total_bytes", where + ".memory", false);
    amount_at(nodes[k], "peak_scratch_bytes", where, true);
  }
  const auto symbols = r.find("symbols");
  if (symbols == r.end()) return;
  if (!symbols->is_array()) fail("symbols", &*symbols);
  for (std::size_t k = 0; k < symbols->size(); ++k) {
    const In& sym = (*symbols)[k];
    const std::string where = "symbols[" + std::to_string(k) + "]";
    if (!sym.is_object()) fail(where, &sym);
    const auto bounds = sym.find("bounds");
    if (bounds == sym.end()) continue;
    if (!bounds->is_array() || bounds->size() != 2) fail(where + ".bounds", &*bounds);
    for (const In& end : *bounds) {
      if (!end.is_null() && !end.is_number_integer()) fail(where + ".bounds", &*bounds);
    }
  }
}

std::string op_type(const In& node) { return node.value("op_type", ""); }

/// "0:0:equal:may_reuse" per decision, in the report's order.
Json decisions(const In& node) {
  Json out = Json::array();
  for (const In& d : node.value("inplace", In::array())) {
    out.push_back(fmt::format("{}:{}:{}:{}", d.value("output", 0), d.value("input", 0),
                              d.value("kind", ""), d.value("mode", "")));
  }
  return out;
}

class Differ {
 public:
  Differ(const DiffSide& before, const DiffSide& after, const std::vector<Assignment>& evaluate)
      : before_(before), after_(after), evaluate_(evaluate) {
    declare_symbols(before.report);
    declare_symbols(after.report);
  }

  Json run() {
    Json doc;
    doc["format"] = "cctx.diff/1";
    doc["before"] = side_json(before_);
    doc["after"] = side_json(after_);
    Json assignments = Json::array();
    for (const Assignment& a : evaluate_) {
      Json j = Json::object();
      for (const auto& [name, value] : a) j[name] = value;
      assignments.push_back(j);
    }
    doc["assignments"] = assignments;
    const auto pairs = match();
    doc["matched_by"] = matched_by_;
    doc["peak"] = {{"before", peak_json(before_.report)}, {"after", peak_json(after_.report)}};
    doc["peak"]["change"] = change_json(amount(before_.report["peak"]["total_bytes"]),
                                        amount(after_.report["peak"]["total_bytes"]));
    Json nodes = Json::array(), inplace = Json::array();
    const In& bn = before_.report["nodes"];
    const In& an = after_.report["nodes"];
    for (const auto& [b, a] : pairs) {
      const Expr before = amount(bn[b]["memory"]["total_bytes"]);
      const Expr after = amount(an[a]["memory"]["total_bytes"]);
      if (before != after) {
        Json j = {{"before_index", b},
                  {"after_index", a},
                  {"name", bn[b].value("name", "")},
                  {"op_type", op_type(bn[b])},
                  {"before", amount_json(pool_, before)},
                  {"after", amount_json(pool_, after)}};
        j["change"] = change_json(before, after);
        nodes.push_back(std::move(j));
      }
      const Json before_decisions = decisions(bn[b]), after_decisions = decisions(an[a]);
      if (before_decisions != after_decisions) {
        inplace.push_back({{"before_index", b},
                           {"after_index", a},
                           {"name", bn[b].value("name", "")},
                           {"op_type", op_type(bn[b])},
                           {"before", before_decisions},
                           {"after", after_decisions}});
      }
    }
    doc["matched_nodes"] = pairs.size();
    doc["changed_nodes"] = nodes.size();
    doc["nodes"] = std::move(nodes);
    doc["inplace_changes"] = std::move(inplace);
    doc["only_before"] = unmatched(bn, pairs, true);
    doc["only_after"] = unmatched(an, pairs, false);
    return doc;
  }

 private:
  void declare_symbols(const In& report) {
    for (const In& s : report.value("symbols", In::array())) {
      const In bounds = s.value("bounds", In::array({nullptr, nullptr}));
      Interval i{bounds[0].is_null() ? kNegInf : bounds[0].get<std::int64_t>(),
                 bounds[1].is_null() ? kPosInf : bounds[1].get<std::int64_t>()};
      const std::string name = s.value("name", "");
      if (!name.empty()) pool_.declare_symbol(name, i);
    }
  }

  Expr amount(const In& j) {
    if (j.is_number_integer()) return pool_.integer(j.get<std::int64_t>());
    if (j.is_string()) return pool_.parse(j.get<std::string>());
    return pool_.integer(0);
  }

  std::int64_t eval(Expr e, const Assignment& a) {
    try {
      return pool_.eval(e, a);
    } catch (const ExprError& err) {
      throw Error(fmt::format("--eval {}: {}", assignment_label(a), err.what()), ExitCode::kUsage);
    }
  }

  static Json side_json(const DiffSide& side) {
    const In model = side.report.value("model", In::object());
    return {{"label", side.label},
            {"model", model.value("path", "")},
            {"graph", model.value("graph", "")},
            {"nodes", side.report["nodes"].size()}};
  }

  /// Index pairs (before, after): by position when both list the same op types, else by name.
  std::vector<std::pair<std::size_t, std::size_t>> match() {
    const In& bn = before_.report["nodes"];
    const In& an = after_.report["nodes"];
    std::vector<std::pair<std::size_t, std::size_t>> pairs;
    bool same_ops = bn.size() == an.size();
    for (std::size_t k = 0; same_ops && k < bn.size(); ++k)
      same_ops = op_type(bn[k]) == op_type(an[k]);
    if (same_ops) {
      matched_by_ = "index";
      for (std::size_t k = 0; k < bn.size(); ++k) pairs.emplace_back(k, k);
      return pairs;
    }
    const auto by_name = [&](const In& nodes, const std::string& label) {
      std::map<std::string, std::size_t> out;
      for (std::size_t k = 0; k < nodes.size(); ++k) {
        const std::string name = nodes[k].value("name", "");
        if (name.empty() || !out.emplace(name, k).second) {
          throw Error(label +
                      ": the graphs differ and its nodes are not all uniquely named, so "
                      "they cannot be matched");
        }
      }
      return out;
    };
    const auto before_names = by_name(bn, before_.label);
    const auto after_names = by_name(an, after_.label);
    matched_by_ = "name";
    for (const auto& [name, b] : before_names) {
      if (auto it = after_names.find(name); it != after_names.end())
        pairs.emplace_back(b, it->second);
    }
    std::sort(pairs.begin(), pairs.end());
    return pairs;
  }

  static Json unmatched(const In& nodes,
                        const std::vector<std::pair<std::size_t, std::size_t>>& pairs,
                        bool before) {
    std::set<std::size_t> seen;
    for (const auto& [b, a] : pairs) seen.insert(before ? b : a);
    Json out = Json::array();
    for (std::size_t k = 0; k < nodes.size(); ++k) {
      if (seen.count(k) == 0) {
        out.push_back(
            {{"index", k}, {"name", nodes[k].value("name", "")}, {"op_type", op_type(nodes[k])}});
      }
    }
    return out;
  }

  Json change_json(Expr before, Expr after) {
    Json j = {{"formula", amount_json(pool_, pool_.sub(after, before))}};
    Json values = Json::array();
    for (const Assignment& a : evaluate_) {
      const std::int64_t b = eval(before, a), v = eval(after, a);
      values.push_back({{"before", b}, {"after", v}, {"change", v - b}});
    }
    j["evaluated"] = values;
    return j;
  }

  /// The peak formula and node, and per assignment the bytes and the lowest node attaining them.
  Json peak_json(const In& report) {
    const In peak = report.value("peak", In::object());
    const In& nodes = report["nodes"];
    const auto op_of = [&](const In& index) {
      return index.is_number_integer() && index.get<std::size_t>() < nodes.size()
                 ? Json(op_type(nodes[index.get<std::size_t>()]))
                 : Json(nullptr);
    };
    const In node = peak.value("node", In(nullptr));
    Json j = {{"total_bytes", peak.value("total_bytes", In(0))},
              {"node", node},
              {"op_type", op_of(node)}};
    std::vector<Expr> terms;
    for (const In& n : nodes) {
      terms.push_back(pool_.add(amount(n["memory"]["total_bytes"]),
                                amount(n.value("peak_scratch_bytes", In(0)))));
    }
    Json evaluations = Json::array();
    for (const Assignment& a : evaluate_) {
      std::int64_t best = 0, at = -1;
      for (std::size_t k = 0; k < terms.size(); ++k) {
        const std::int64_t v = eval(terms[k], a);
        if (at < 0 || v > best) {
          best = v;
          at = static_cast<std::int64_t>(k);
        }
      }
      evaluations.push_back({{"bytes", best}, {"node", at}, {"op_type", op_of(In(at))}});
    }
    j["evaluations"] = evaluations;
    return j;
  }

  const DiffSide& before_;
  const DiffSide& after_;
  const std::vector<Assignment>& evaluate_;
  ExprPool pool_;
  std::string matched_by_;
};

}  // namespace

nlohmann::ordered_json diff_reports(const DiffSide& before, const DiffSide& after,
                                    const std::vector<Assignment>& evaluate) {
  check_format(before);
  check_format(after);
  check_amounts(before);
  check_amounts(after);
  try {
    return Differ(before, after, evaluate).run();
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("{} / {}: malformed report ({})", before.label, after.label, e.what()));
  } catch (const ExprError& e) {
    throw Error(
        fmt::format("{} / {}: bad amount in report ({})", before.label, after.label, e.what()));
  }
}

}  // namespace cctx
