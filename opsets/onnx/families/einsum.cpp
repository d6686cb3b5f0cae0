// Einsum (opset 12): labels bound to dims (repeats unified with `eq`, ellipsis dims broadcast),
// explicit output after `->`, else the ellipsis dims then the once-occurring labels in ASCII
// order (expressions.md "Symbolic shape inference rules (ai.onnx plugin)"). The scratch estimate
// counts the transposed copies a batched-GEMM plan needs (semantics.md "Peak scratch memory").
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "families.hpp"
#include "nn_common.hpp"
#include "rule_kit.hpp"

namespace cctx::opsets::onnx {

namespace {

/// A parsed term: letter codes in order, with kEllipsis where "..." stood.
using Term = std::vector<int>;
using Labels = std::vector<int>;

constexpr int kEllipsis = -1;
/// Ellipsis dims become labels kEllipsisLabel + k, k counted over the broadcast ellipsis block.
constexpr int kEllipsisLabel = 256;

struct Equation {
  std::vector<Term> inputs;
  Term output;
  bool explicit_output = false;
  bool any_ellipsis = false;
};

bool parse_term(const std::string& text, Term* term, std::string* error) {
  bool ellipsis = false;
  for (std::size_t k = 0; k < text.size(); ++k) {
    const char c = text[k];
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
      term->push_back(static_cast<unsigned char>(c));
    } else if (text.compare(k, 3, "...") == 0 && !ellipsis) {
      term->push_back(kEllipsis);
      ellipsis = true;
      k += 2;
    } else {
      *error = "invalid term '" + text + "' in the equation";
      return false;
    }
  }
  return true;
}

bool parse_equation(const std::string& raw, Equation* eq, std::string* error) {
  std::string text;
  for (char c : raw) {
    if (c != ' ') text.push_back(c);
  }
  const std::size_t arrow = text.find("->");
  eq->explicit_output = arrow != std::string::npos;
  const std::string lhs = text.substr(0, arrow);
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = lhs.find(',', start);
    Term term;
    if (!parse_term(lhs.substr(start, comma - start), &term, error)) return false;
    eq->inputs.push_back(std::move(term));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (eq->explicit_output && !parse_term(text.substr(arrow + 2), &eq->output, error)) return false;
  for (const Term& t : eq->inputs) {
    eq->any_ellipsis = eq->any_ellipsis || std::count(t.begin(), t.end(), kEllipsis) > 0;
  }
  return true;
}

std::size_t letter_count(const Term& t) {
  return static_cast<std::size_t>(
      std::count_if(t.begin(), t.end(), [](int c) { return c != kEllipsis; }));
}

/// The labels of an operand of rank `rank`, its ellipsis expanded into the last `rank - letters`
/// labels of a block of `width` ellipsis labels.
Labels expand(const Term& t, std::size_t rank, std::size_t width) {
  Labels labels;
  const std::size_t dots = rank - letter_count(t);
  for (int c : t) {
    if (c != kEllipsis) {
      labels.push_back(c);
      continue;
    }
    for (std::size_t j = 0; j < dots; ++j)
      labels.push_back(kEllipsisLabel + static_cast<int>(width - dots + j));
  }
  return labels;
}

/// Checks each operand's rank against its term; returns the ellipsis block width.
bool ellipsis_width(const Equation& eq, const std::vector<Shape>& shapes, std::size_t* width,
                    std::string* error) {
  *width = 0;
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    if (!shapes[i].known) continue;
    const Term& t = eq.inputs[i];
    const std::size_t letters = letter_count(t), rank = shapes[i].rank();
    const bool dots = letters != t.size();
    if ((dots && rank < letters) || (!dots && rank != letters)) {
      *error = "operand " + std::to_string(i) + " has rank " + std::to_string(rank) +
               " but its term has " + std::to_string(letters) + " labels";
      return false;
    }
    *width = std::max(*width, rank - letters);
  }
  return true;
}

/// The output labels: explicit, or ellipsis then once-occurring letters in ASCII order.
bool output_labels(const Equation& eq, std::size_t width, Labels* labels, std::string* error) {
  if (!eq.explicit_output) {
    for (std::size_t j = 0; j < width; ++j) labels->push_back(kEllipsisLabel + static_cast<int>(j));
    std::map<int, int> counts;
    for (const Term& t : eq.inputs) {
      for (int c : t) {
        if (c != kEllipsis) ++counts[c];
      }
    }
    for (const auto& [letter, count] : counts) {
      if (count == 1) labels->push_back(letter);
    }
    return true;
  }
  for (int c : eq.output) {
    if (c == kEllipsis) {
      for (std::size_t j = 0; j < width; ++j)
        labels->push_back(kEllipsisLabel + static_cast<int>(j));
      continue;
    }
    if (std::count(labels->begin(), labels->end(), c) > 0) {
      *error = std::string("output label '") + static_cast<char>(c) + "' repeats";
      return false;
    }
    const bool used = std::any_of(eq.inputs.begin(), eq.inputs.end(), [c](const Term& t) {
      return std::count(t.begin(), t.end(), c) > 0;
    });
    if (!used) {
      *error = std::string("output label '") + static_cast<char>(c) + "' is in no input";
      return false;
    }
    labels->push_back(c);
  }
  return true;
}

bool read_equation(const INodeView& node, Equation* eq, std::string* error) {
  if (node.attribute_type("equation") == AttrType::kNone) {
    *error = "missing 'equation' attribute";
    return false;
  }
  if (!parse_equation(attr_string_or(node, "equation", ""), eq, error)) return false;
  if (eq->inputs.size() != node.input_count()) {
    *error = "equation has " + std::to_string(eq->inputs.size()) +
             " operand terms but the node has " + std::to_string(node.input_count()) + " inputs";
    return false;
  }
  return true;
}

// ---- shape rule ---------------------------------------------------------------------------------

/// Binds every label of the operands of known rank: letters unified, ellipsis dims broadcast.
bool bind_labels(IShapeSink& out, const Equation& eq, const std::vector<Shape>& shapes,
                 std::size_t width, std::map<int, Dim>* dims, std::string* error) {
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    if (!shapes[i].known) continue;
    const Labels labels = expand(eq.inputs[i], shapes[i].rank(), width);
    for (std::size_t a = 0; a < labels.size(); ++a) {
      const Dim d = shapes[i].dims[a];
      auto it = dims->find(labels[a]);
      if (it == dims->end()) {
        dims->emplace(labels[a], d);
        continue;
      }
      const bool ellipsis = labels[a] >= kEllipsisLabel;
      std::string detail;
      const bool ok = ellipsis ? broadcast_dim(out, it->second, d, &it->second, &detail)
                               : nn::unify(out, it->second, d, &it->second, &detail);
      if (!ok) {
        *error = "operand " + std::to_string(i) + " axis " + std::to_string(a) + ": " + detail;
        return false;
      }
    }
  }
  return true;
}

Status einsum(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 1);
  Equation eq;
  std::string error;
  if (!read_equation(node, &eq, &error)) return fail(error);
  std::vector<Shape> shapes;
  bool all_known = true;
  for (std::uint32_t i = 0; i < node.input_count(); ++i) {
    shapes.push_back(input_shape(node, i));
    all_known = all_known && shapes.back().known;
  }
  const std::int32_t dtype = node.input_dtype(0);
  // Without every rank the ellipsis width is unknown, and so is the output rank.
  if (!all_known && eq.any_ellipsis) return set_shape(out, 0, dtype, Shape::unknown());
  std::size_t width;
  if (!ellipsis_width(eq, shapes, &width, &error)) return fail(error);
  Labels labels;
  if (!output_labels(eq, width, &labels, &error)) return fail(error);
  std::map<int, Dim> dims;
  if (!bind_labels(out, eq, shapes, width, &dims, &error)) return fail(error);
  std::vector<Dim> result;
  for (int l : labels) {
    auto it = dims.find(l);
    result.push_back(it != dims.end() ? it->second : Dim());
  }
  return set_shape(out, 0, dtype, nn::fill_unknown(node, out, 0, std::move(result)));
}

// ---- scratch estimate ---------------------------------------------------------------------------

bool contains(const Labels& labels, int l) {
  return std::count(labels.begin(), labels.end(), l) > 0;
}

bool has_repeats(const Labels& labels) {
  for (std::size_t a = 0; a < labels.size(); ++a) {
    if (std::count(labels.begin() + static_cast<std::ptrdiff_t>(a) + 1, labels.end(), labels[a]) >
        0) {
      return true;
    }
  }
  return false;
}

/// Labels of `order` that satisfy `keep`, in `order`'s order.
template <class Pred>
Labels select(const Labels& order, Pred keep) {
  Labels r;
  for (int l : order) {
    if (keep(l) && !contains(r, l)) r.push_back(l);
  }
  return r;
}

Labels concat(Labels a, const Labels& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

/// True when `labels` is `batch`, then `x` and `y` as two contiguous blocks in either order: the
/// layout a batched GEMM reads (or writes) without a transposed copy.
bool laid_out(const Labels& labels, const Labels& batch, const Labels& x, const Labels& y) {
  return labels == concat(concat(batch, x), y) || labels == concat(concat(batch, y), x);
}

/// The estimator's view of the node: labels and bytes of each operand, dims of every label.
struct Plan {
  std::vector<Labels> operands;
  std::vector<Dim> operand_bytes;
  Labels output;
  std::map<int, Dim> dims;
  std::int64_t element = 0;

  Dim bytes_of(const Labels& labels, const INodeView& node) const {
    Dim b = node.constant(element);
    for (int l : labels) b = b * dims.at(l);
    return b;
  }
};

bool make_plan(const INodeView& node, Plan* plan, std::string* why) {
  Equation eq;
  if (!read_equation(node, &eq, why)) return false;
  std::vector<Shape> shapes;
  for (std::uint32_t i = 0; i < node.input_count(); ++i) {
    Shape s;
    if (!nn::known_shape(node, i, &s)) {
      *why = "shape of operand " + std::to_string(i) + " unknown";
      return false;
    }
    shapes.push_back(std::move(s));
  }
  if (!nn::input_element_bytes(node, 0, &plan->element, why)) return false;
  std::size_t width;
  if (!ellipsis_width(eq, shapes, &width, why) || !output_labels(eq, width, &plan->output, why)) {
    return false;
  }
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    plan->operands.push_back(expand(eq.inputs[i], shapes[i].rank(), width));
    plan->operand_bytes.push_back(product(node, shapes[i].dims, 0, shapes[i].rank()) *
                                  plan->element);
    for (std::size_t a = 0; a < shapes[i].rank(); ++a) {
      // A broadcast ellipsis dim of 1 yields to the other operand's size.
      auto [it, inserted] = plan->dims.emplace(plan->operands[i][a], shapes[i].dims[a]);
      if (!inserted && it->second.is(1)) it->second = shapes[i].dims[a];
    }
  }
  return true;
}

/// One operand: a transposed copy unless it is [kept labels in output order, summed labels] or
/// the reverse; a pure permutation writes the output directly.
Dim single_operand_scratch(const INodeView& node, const Plan& p) {
  const Labels& a = p.operands[0];
  const Labels summed = select(a, [&](int l) { return !contains(p.output, l); });
  if (!has_repeats(a) && summed.empty()) return node.constant(0);
  if (!has_repeats(a) && laid_out(a, {}, p.output, summed)) return node.constant(0);
  return p.operand_bytes[0];
}

/// Operands contracted left to right, each step a batched GEMM: every operand (or the output)
/// that is not already [batch, then kept and contracted labels as two blocks] costs a copy of its
/// bytes, and each intermediate result of more than two operands is held too.
Dim pairwise_scratch(const INodeView& node, const Plan& p) {
  Dim total = node.constant(0);
  Labels cur = p.operands[0];
  Dim cur_bytes = p.operand_bytes[0];
  for (std::size_t k = 1; k < p.operands.size(); ++k) {
    const Labels& b = p.operands[k];
    const bool last = k + 1 == p.operands.size();
    Labels needed = p.output;
    for (std::size_t j = k + 1; j < p.operands.size(); ++j) needed = concat(needed, p.operands[j]);
    auto in_needed = [&](int l) { return contains(needed, l); };
    // The final step lays its blocks out in the output's order; an intermediate in its own.
    const Labels& order_a = last ? p.output : cur;
    const Labels& order_b = last ? p.output : b;
    const Labels batch =
        select(order_a, [&](int l) { return contains(cur, l) && contains(b, l) && in_needed(l); });
    const Labels kept_a =
        select(order_a, [&](int l) { return contains(cur, l) && !contains(b, l) && in_needed(l); });
    const Labels kept_b =
        select(order_b, [&](int l) { return contains(b, l) && !contains(cur, l) && in_needed(l); });
    const Labels contracted = select(cur, [&](int l) { return contains(b, l) && !in_needed(l); });
    const Labels summed_a = select(cur, [&](int l) { return !contains(b, l) && !in_needed(l); });
    const Labels summed_b = select(b, [&](int l) { return !contains(cur, l) && !in_needed(l); });
    if (has_repeats(cur) || !summed_a.empty() || !laid_out(cur, batch, kept_a, contracted)) {
      total = total + cur_bytes;
    }
    if (has_repeats(b) || !summed_b.empty() || !laid_out(b, batch, kept_b, contracted)) {
      total = total + p.operand_bytes[k];
    }
    if (last) {
      if (!laid_out(p.output, batch, kept_a, kept_b)) total = total + p.bytes_of(p.output, node);
      break;
    }
    cur = concat(concat(batch, kept_a), kept_b);
    cur_bytes = p.bytes_of(cur, node);
    total = total + cur_bytes;
  }
  return total;
}

Status einsum_scratch(const INodeView& node, IScratchSink& out) {
  Plan plan;
  std::string why;
  if (!make_plan(node, &plan, &why)) return unsupported(why);
  if (plan.operands.size() == 1) return out.set_bytes(single_operand_scratch(node, plan));
  return out.set_bytes(pairwise_scratch(node, plan));
}

constinit const FnShapeRule kEinsum{&einsum};
constinit const FnScratchEstimator kEinsumScratch{&einsum_scratch};

}  // namespace

void register_einsum(Registration& reg) {
  reg.shape("Einsum", 12, kEinsum);
  reg.scratch("Einsum", 12, kEinsumScratch);
}

}  // namespace cctx::opsets::onnx
