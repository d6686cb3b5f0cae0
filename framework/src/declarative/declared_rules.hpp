// The rule objects of a profile's declarative ops (`ops:`), and their registration. They
// implement the SDK's rule interfaces and talk to the host only through INodeView, the sinks and
// ExprApi, like a plugin's rules; the host owns them through the pseudo-plugin's PluginHandle.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cctx/op_declarations.hpp"
#include "cctx/registry.hpp"

namespace cctx {

class DeclaredOpRules;

/// Every rule object of one profile's `ops:`; immutable once built.
class DeclaredRuleSet {
 public:
  /// `registry` sizes the element types plugins registered (`bytes(inK)`); the rules are only
  /// reached through it, so it outlives every call.
  DeclaredRuleSet(std::vector<DeclaredOp> ops, const RuleRegistry* registry);
  ~DeclaredRuleSet();
  DeclaredRuleSet(const DeclaredRuleSet&) = delete;
  DeclaredRuleSet& operator=(const DeclaredRuleSet&) = delete;

  /// Registers every op's rules in `registry` on behalf of `owner` (which must keep this set
  /// alive), each with the origin "profile <file:line:column>", and declares their domains under
  /// `domain_origin`. All keys are checked before anything is added: a key a plugin registered
  /// already is a PluginError naming both, unless the op says `override: true`.
  void register_into(RuleRegistry& registry, const std::shared_ptr<const PluginHandle>& owner,
                     const std::string& domain_origin) const;

  std::size_t size() const { return ops_.size(); }

 private:
  std::vector<std::unique_ptr<DeclaredOpRules>> ops_;
};

}  // namespace cctx
