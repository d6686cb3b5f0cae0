// genai_config.json (genai_config.hpp).
#include "genai_config.hpp"

#include <onnx/onnx_pb.h>

#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>

#include "cctx/errors.hpp"

namespace cctx::cli {

namespace fs = std::filesystem;

namespace {

constexpr const char* kFileName = "genai_config.json";

GenaiConfig read_config(const fs::path& file) {
  std::ifstream in(file);
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw ConfigError(file.string() + ": not JSON (" + std::string(e.what()) + ")");
  }
  auto at = [&](std::initializer_list<const char*> keys) -> const nlohmann::json* {
    const nlohmann::json* node = &doc;
    for (const char* k : keys) {
      if (!node->is_object() || !node->contains(k)) return nullptr;
      node = &(*node)[k];
    }
    return node;
  };
  GenaiConfig c;
  c.file = file;
  const nlohmann::json* filename = at({"model", "decoder", "filename"});
  if (filename == nullptr || !filename->is_string()) {
    throw ConfigError(file.string() +
                      ": model.decoder.filename is missing (a decoder's ONNX file)");
  }
  c.model = file.parent_path() / filename->get<std::string>();
  for (const auto& keys : {std::initializer_list<const char*>{"search", "max_length"},
                           std::initializer_list<const char*>{"model", "context_length"}}) {
    if (const nlohmann::json* v = at(keys); v != nullptr && v->is_number_integer()) {
      c.max_length = v->get<std::int64_t>();
      if (c.max_length > 0) break;
    }
  }
  if (const nlohmann::json* v = at({"search", "past_present_share_buffer"}); v && v->is_boolean()) {
    c.share_buffer = v->get<bool>();
  }
  auto text = [&](std::initializer_list<const char*> keys, std::string& out) {
    if (const nlohmann::json* v = at(keys); v != nullptr && v->is_string()) out = *v;
  };
  text({"model", "decoder", "inputs", "past_key_names"}, c.past_key_names);
  text({"model", "decoder", "inputs", "past_value_names"}, c.past_value_names);
  text({"model", "decoder", "inputs", "input_ids"}, c.input_ids);
  text({"model", "decoder", "inputs", "attention_mask"}, c.attention_mask);
  return c;
}

/// The dim_param of `axis` of a graph input, or "".
std::string dim_symbol(const onnx::GraphProto& g, const std::string& input, int axis) {
  for (const onnx::ValueInfoProto& v : g.input()) {
    if (v.name() != input || !v.type().has_tensor_type()) continue;
    const onnx::TensorShapeProto& s = v.type().tensor_type().shape();
    if (axis < s.dim_size() && s.dim(axis).has_dim_param()) return s.dim(axis).dim_param();
  }
  return {};
}

/// The names a "%d" pattern gives for layers 0, 1, ... while the model has them.
std::vector<std::string> layer_names(const onnx::GraphProto& g, const std::string& pattern) {
  std::vector<std::string> names;
  const std::size_t at = pattern.find("%d");
  if (at == std::string::npos) return names;
  std::set<std::string> inputs;
  for (const onnx::ValueInfoProto& v : g.input()) inputs.insert(v.name());
  for (int layer = 0; layer < 100000; ++layer) {
    std::string name = pattern;
    name.replace(at, 2, std::to_string(layer));
    if (inputs.count(name) == 0) break;
    names.push_back(std::move(name));
  }
  return names;
}

}  // namespace

std::optional<GenaiConfig> find_genai_config(const fs::path& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    const fs::path file = path / kFileName;
    if (!fs::is_regular_file(file, ec)) return std::nullopt;
    return read_config(file);
  }
  const fs::path beside = path.parent_path() / kFileName;
  if (!fs::is_regular_file(beside, ec)) return std::nullopt;
  GenaiConfig c = read_config(beside);
  // Only the configuration of this very file: a folder may hold other models too.
  if (fs::weakly_canonical(c.model, ec) != fs::weakly_canonical(path, ec)) return std::nullopt;
  return c;
}

std::string genai_total_length_symbol(const GenaiConfig& config, const Model& model) {
  return dim_symbol(model.proto().graph(), config.attention_mask, 1);
}

std::vector<std::string> apply_genai_config(const GenaiConfig& c, const Model& model,
                                            Profile& profile,
                                            std::vector<SymbolRelation>& relations) {
  std::vector<std::string> notes;
  const onnx::GraphProto& g = model.proto().graph();
  std::set<std::string> context, past;
  for (const std::string& name : {c.input_ids, c.attention_mask}) {
    if (std::string s = dim_symbol(g, name, 1); !s.empty()) context.insert(s);
  }
  for (const std::string& pattern : {c.past_key_names, c.past_value_names}) {
    for (const std::string& name : layer_names(g, pattern)) {
      if (std::string s = dim_symbol(g, name, 2); !s.empty()) past.insert(s);
    }
  }
  if (c.max_length > 0) {
    std::string bounded;
    for (const std::set<std::string>* names : {&context, &past}) {
      for (const std::string& s : *names) {
        if (profile.symbols.count(s) != 0) continue;  // --bounds or the profile said otherwise
        profile.symbols[s] = {1, c.max_length};
        bounded += (bounded.empty() ? "" : ", ") + s;
      }
    }
    if (!bounded.empty()) {
      notes.push_back(c.file.string() + ": max_length " + std::to_string(c.max_length) +
                      " bounds " + bounded);
    }
  }
  if (c.share_buffer && c.max_length > 0) {
    // onnxruntime-genai binds each present to its past's buffer: ONNX Runtime allocates no
    // present (the onnxruntime plugin's kv_share_buffer), unless the profile says otherwise.
    for (PluginSpec& plugin : profile.plugins) {
      if (plugin.name != "onnxruntime" || plugin.options.count("kv_share_buffer") != 0) continue;
      plugin.options["kv_share_buffer"] = "on";
      notes.push_back(c.file.string() +
                      ": past_present_share_buffer: each present is written into its past's "
                      "buffer (kv_share_buffer: on)");
    }
    for (const std::string& s : past) {
      // Bounds [L, L]: the analysis knows the buffer's length, so a present no longer than it
      // is proved to fit the past's buffer (the reuse onnxruntime-genai binds); the relation
      // gives the value to every assignment.
      if (profile.symbols.count(s) == 0 || profile.symbols[s] == Interval{1, c.max_length}) {
        profile.symbols[s] = {c.max_length, c.max_length};
      }
      relations.push_back({s, std::to_string(c.max_length),
                           c.file.string() + "'s search.past_present_share_buffer"});
      notes.push_back(c.file.string() + ": past_present_share_buffer: the past caches are " +
                      std::to_string(c.max_length) + " long (" + s + " = " +
                      std::to_string(c.max_length) + ")");
    }
  }
  return notes;
}

std::optional<Model> load_with_genai_config(const std::string& path, Profile& profile,
                                            StreamPayloads payloads,
                                            std::vector<SymbolRelation>& relations) {
  const std::optional<GenaiConfig> config = find_genai_config(path);
  if (!config) return std::nullopt;
  Model model = Model::load(config->model.string(), profile.limits, payloads);
  for (const std::string& note : apply_genai_config(*config, model, profile, relations)) {
    std::cerr << "cctx: " << note << "\n";
  }
  return model;
}

}  // namespace cctx::cli
