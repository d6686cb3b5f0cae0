// onnxruntime-genai's genai_config.json (docs/deployers.md, "onnxruntime-genai models"): when the
// model argument is a folder holding one, or a model file lies next to one that names it, the
// configuration the user deploys bounds the context symbols and selects the KV cache mode.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "cctx/model.hpp"
#include "cctx/profile.hpp"
#include "cctx/session.hpp"

namespace cctx::cli {

struct GenaiConfig {
  std::filesystem::path file;   ///< the genai_config.json read
  std::filesystem::path model;  ///< the decoder's ONNX file (model.decoder.filename)
  std::int64_t max_length = 0;  ///< search.max_length, else model.context_length
  bool share_buffer = false;    ///< search.past_present_share_buffer
  std::string past_key_names, past_value_names;  ///< "past_key_values.%d.key"
  std::string input_ids = "input_ids", attention_mask = "attention_mask";
};

/// The configuration for a model argument: `path` itself when it is a folder holding
/// genai_config.json (whose decoder file becomes the model), or the genai_config.json next to
/// the model file when it names that file. nullopt when there is none. Throws ConfigError naming
/// the file when it is not a configuration cctx can read.
std::optional<GenaiConfig> find_genai_config(const std::filesystem::path& path);

/// What the configuration decides, applied before the analysis: the symbols of the inputs'
/// sequence axes (input_ids and attention_mask axis 1, the past caches' axis 2) bounded by
/// max_length unless --bounds or the profile bound them; with a shared past/present buffer, the
/// past caches' length symbol equals max_length (a relation). Returns one line per decision, for
/// stderr.
std::vector<std::string> apply_genai_config(const GenaiConfig& config, const Model& model,
                                            Profile& profile,
                                            std::vector<SymbolRelation>& relations);

/// The symbol of the attention mask's axis 1 (the total length: past plus new tokens), the one
/// that search.max_length bounds; "" when the mask has no such symbol.
std::string genai_total_length_symbol(const GenaiConfig& config, const Model& model);

/// The model a command analyses, when `path` has a genai_config.json: its decoder loaded, the
/// configuration applied to `profile` and `relations`, the decisions on stderr. nullopt when it
/// has none (the caller loads `path` itself).
std::optional<Model> load_with_genai_config(const std::string& path, Profile& profile,
                                            StreamPayloads payloads,
                                            std::vector<SymbolRelation>& relations);

}  // namespace cctx::cli
