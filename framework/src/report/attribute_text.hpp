// One node attribute as `cctx print` shows it, in the style of ONNX's own text printer
// (onnx/defs/printer.cc): `axis = 1`, `alpha = 0.5`, `mode = "constant"`, `perm = [0, 2, 1]`,
// tensors by type and shape (`value = float[2,3]`, no data), bodies by name and size.
#pragma once

#include <string>

namespace onnx {
class AttributeProto;
}

namespace cctx {

/// `name = value`, safe for a terminal; lists longer than 8 items show the first 8 and the count.
std::string attribute_text(const onnx::AttributeProto& attribute);

}  // namespace cctx
