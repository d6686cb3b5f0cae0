// The `ops:` section of a profile: declarative custom ops (config/profiles/README.md,
// "Declarative ops"). Private to framework/src/config.
#pragma once

#include <string_view>
#include <vector>

#include "cctx/op_declarations.hpp"
#include "yaml_checks.hpp"

namespace cctx::detail {

/// Reads and checks every entry of `ops:`, compiling its expressions. `text` is the profile's
/// text, used to point at the column of a problem inside an expression. Throws ConfigError.
std::vector<DeclaredOp> read_ops(const Checker& check, const Field& field, std::string_view text);

/// Adds the ops of one profile file to those inherited from its parents: an op with the same
/// (domain, op_type, since_version) replaces the parent's in place, others are appended.
void merge_ops(std::vector<DeclaredOp>& into, std::vector<DeclaredOp> ops);

}  // namespace cctx::detail
