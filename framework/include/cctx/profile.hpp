// Analysis profiles: which plugins to load and how to run the analysis (YAML, yaml-cpp).
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cctx/expr.hpp"
#include "cctx/limits.hpp"
#include "cctx/op_declarations.hpp"

namespace cctx {

/// One entry of `plugins:`. Exactly one of `name` / `path` is set.
struct PluginSpec {
  std::string name;            ///< looked up as lib<name>.so / libcctx_<name>.so in plugin_path
  std::filesystem::path path;  ///< explicit file (relative paths resolved against the profile)
  std::map<std::string, std::string> options;  ///< string key/values handed to the plugin
  /// Where each key of `options` is written ("file:line:column"), in document order: a key the
  /// plugin does not accept is reported there. Keys set by code have none (then `where`).
  std::vector<std::pair<std::string, std::string>> option_where;
  bool override_rules = false;  ///< `override: true`: may replace rules registered earlier
  /// `toolchain: strict`: refuse the plugin when its C++ runtime differs from cctx's (another
  /// library, ABI or debug layout); by default such a plugin loads with a warning, since no
  /// C++ library type crosses the boundary.
  bool strict_toolchain = false;
  std::string where;  ///< "file:line:column" of the entry, for messages
};

enum class InplaceFallback { kNone, kStructural };

/// Every key of a profile, with its default. See config/profiles/README.md.
/// The runtime parameter `memory.threads` declares (Profile::Memory::Threads).
inline constexpr std::string_view kThreadsSymbol = "threads";

struct Profile {
  std::string name = "default";
  std::filesystem::path source;  ///< file it was read from (empty for built-in defaults)
  std::vector<PluginSpec> plugins;
  /// `ops:` declarative custom ops, registered after the plugins (op_declarations.hpp).
  std::vector<DeclaredOp> ops;
  std::vector<std::filesystem::path> plugin_path;        ///< searched before the default folders
  std::map<std::string, Interval, std::less<>> symbols;  ///< bounds; default [1, +inf)
  /// Sizes fixed before inference: a declared dim that is one of these symbols is that integer,
  /// as if the model declared it so (`cctx analyze --eval` when the sizes decide which branch of an
  /// If runs: semantics.md "Evaluation at fixed sizes"). Set by the CLI, never read from a file.
  std::map<std::string, std::int64_t, std::less<>> fixed_sizes;
  /// Dims of main-graph inputs as the caller really feeds them, replacing the declared ones
  /// (`--input attention_mask=batch,past+seq`): one expression or integer per axis. For a model
  /// whose declaration says less or other than the truth (Hugging Face Optimum names an
  /// attention mask `past_sequence_length + 1`, true at a decode step only). Set by the CLI,
  /// never read from a file.
  std::map<std::string, std::vector<std::string>, std::less<>> input_dims;

  struct Shapes {
    bool strict = false;
    /// Order of the fallbacks for ops without a rule: onnx_schema, declared, unknown_rank.
    std::vector<std::string> fallback = {"onnx_schema", "declared", "unknown_rank"};
  } shapes;
  struct Tags {
    bool enabled = true;
  } tags;
  struct Inplace {
    bool enabled = true;
    bool allow_input_overwrite = false;
    InplaceFallback fallback = InplaceFallback::kNone;
  } inplace;
  struct Memory {
    bool enabled = true;
    /// The buffer planner (lifetimes, in-place reuse, buffers): "seed", the seed's accounting;
    /// "free_list", ONNX Runtime's sequential planner (architecture.md, "The buffer plan").
    std::string buffer_plan = "seed";
    /// The order the nodes run in, which every stage follows: "file" (as written, producers
    /// first) or "reverse_dfs" (ONNX Runtime's default execution order; cctx/graph.hpp
    /// NodeOrder).
    std::string execution_order = "file";
    /// Constant nodes' outputs are held like initializers, from before the first node (ONNX
    /// Runtime turns Constant nodes into initializers when it loads a graph).
    bool constants_as_initializers = false;
    /// Nodes ONNX Runtime's ConstantFolding (level basic on) computes when the session loads
    /// are folded: a Shape of static dims, then every node whose inputs are all constants
    /// (initializers, Constant nodes, folded outputs; not DequantizeLinear, not random, no
    /// body). Their outputs are held like initializers, and they run no kernel. free_list
    /// planner only.
    bool fold_shape_constants = false;
    /// Bytes a runtime session holds besides the initializers (its own structures): added to
    /// every evaluation's session_bytes.
    std::int64_t session_overhead_bytes = 0;
    /// And per node of the main graph (a runtime keeps a kernel object per node).
    std::int64_t session_overhead_per_node_bytes = 0;
    /// Copies of the graph outputs the caller makes after a run while the runtime still holds
    /// them (onnxruntime-node copies each output into a JavaScript buffer: 1). run_bytes is at
    /// least the outputs' bytes times 1 + output_copies.
    std::int64_t output_copies = 0;
    /// What a runtime allocates for itself during a run besides tensors (ONNX Runtime's
    /// execution frame: a slot per value from the start, then a little more per node run):
    /// at node n, run_overhead_bytes + run_overhead_per_value_bytes * values of the main graph
    /// + run_overhead_per_node_bytes * (n + 1) joins the run figure.
    std::int64_t run_overhead_bytes = 0;
    std::int64_t run_overhead_per_value_bytes = 0;
    std::int64_t run_overhead_per_node_bytes = 0;
    /// The runtime's intra-op threads, `memory.threads`: when `declared`, the symbol `threads`
    /// is a runtime parameter of every analysis (ExprPool::declare_parameter) whose value an
    /// assignment may give (`--eval threads=16`) and otherwise is `default_threads` (0: this
    /// machine's physical cores, ONNX Runtime's default). Kernels' per-thread working memory is
    /// written in it by the plugins (the `onnxruntime` plugin's Conv and GroupQueryAttention),
    /// and the session holds `session_bytes_per_thread` for each thread beyond the first (ONNX
    /// Runtime's thread pool).
    struct Threads {
      bool declared = false;
      std::int64_t default_threads = 0;
      std::int64_t session_bytes_per_thread = 0;
    } threads;
    /// What `cctx fit` keeps free under a budget: bytes + percent of the reserve, the runtime's
    /// measured error band (tests/validate/README.md, "cctx fit against ONNX Runtime").
    std::int64_t headroom_bytes = 0;
    std::int64_t headroom_percent = 0;
    /// An arena between the runtime and malloc, modelled after ONNX Runtime's BFC arena
    /// (docs/design/onnxruntime-memory.md, "BFC arena"): best-fit chunks in regions that are
    /// never returned, the first region `initial_region_bytes`, each next one twice the last
    /// (up to `max_doubling_bytes`) or the next power-of-two multiple that fits the request.
    /// With an arena, run_bytes is what the arena reserves over the first two runs, and
    /// session_bytes counts the regions the initializers took when they are allocated from it
    /// (architecture.md, "The buffer plan").
    struct Arena {
      bool enabled = false;
      std::int64_t initial_region_bytes = std::int64_t{1} << 20;
      std::int64_t max_doubling_bytes = std::int64_t{1} << 30;
      std::int64_t rounding_bytes = 256;  ///< every request rounded up to a multiple
      /// A free chunk is split when it is at least twice the request or would waste this much.
      std::int64_t max_dead_bytes_per_chunk = std::int64_t{128} << 20;
      /// The second run asks for one block holding every planned buffer at offsets traced in
      /// the first run (ONNX Runtime's memory pattern); outputs and scratch stay separate.
      bool memory_pattern = true;
      /// The initializers are allocated from the arena when the session loads (older ONNX
      /// Runtime releases; 1.30 holds them outside it, measured).
      bool initializers = false;
      /// Constant inputs the kernels pack at session load into buffers of this arena (ONNX
      /// Runtime's PrePack, where the kernel allocates rather than reserves: QLinearConv's
      /// symmetric path for uint8 activations): `[domain:]Op:input [K=type ...]`, the packing
      /// only where input K has that element type. Each packed copy is the initializer's size
      /// (the layouts pad it by at most a block of channels); the original, outside the arena,
      /// is freed once packed. Allocated in node order after the initializers, held for the
      /// session's life: the session counts the regions they take, and the runs start from them.
      struct Prepacked {
        std::string domain;  ///< normalised: "" for ai.onnx
        std::string op_type;
        std::int32_t input = 0;
        std::vector<std::pair<std::int32_t, std::int32_t>> types;  ///< (input, ONNX type code)
        /// (attribute, value): integer attributes the node must have (an absent one is 0).
        std::vector<std::pair<std::string, std::int64_t>> attributes;
        /// `temporary`: a copy the kernel makes and frees while the session loads (QGemm's
        /// transposed B, which it packs outside the arena or not at all): the region it took
        /// stays, the original too.
        bool temporary = false;
      };
      std::vector<Prepacked> prepacked;
    } arena;
  } memory;
  struct Scratch {
    bool enabled = true;
  } scratch;
  struct Report {
    std::vector<Assignment> evaluate;  ///< assignments evaluated in reports
    /// `let: {total_seq: past_seq + seq}`: symbols an assignment lacks, computed from the
    /// others it gives (Session::set_relations), in document order.
    std::vector<std::pair<std::string, std::string>> let;
  } report;
  ExprLimits expressions;  ///< `expressions: {max_weight, max_terms, max_degree, max_args}`
  Limits limits;  ///< `limits: {file_bytes, nodes, rank, subgraph_depth, expression_chars}`
  bool decision_log = false;
  /// Record which attributes of each node some rule read (ComputeContext::attributes_read), for
  /// `cctx plugins --check`. Set by code, not by a profile file.
  bool record_attribute_reads = false;
};

/// Reads a profile file. `extends:` is resolved (relative to the file), `${VAR}` expands in
/// paths, relative plugin paths and plugin_path entries are made absolute against the profile's
/// folder. Throws ConfigError with `file:line:column: message` (unknown key with the allowed
/// keys, wrong type, bad value, YAML syntax error, extends cycle, missing file).
Profile load_profile(const std::filesystem::path& path);

/// One named assignment of a scenario file (`decode: {batch: 8, seq: 1, past_seq: 2047}`).
struct Scenario {
  std::string name;
  Assignment values;
};
/// A scenario file: named assignments evaluated side by side (`cctx analyze --scenarios`), and
/// the relations they rely on (`let: {total_seq: past_seq + seq}`).
struct ScenarioFile {
  std::vector<Scenario> scenarios;
  std::vector<std::pair<std::string, std::string>> let;
};
/// Reads a scenario file; throws ConfigError naming the file, line and column.
ScenarioFile load_scenarios(const std::filesystem::path& path);

/// Parses profile text. `source` names it in messages; `base_dir` anchors relative paths.
Profile parse_profile(const std::string& yaml, const std::string& source,
                      const std::filesystem::path& base_dir);

}  // namespace cctx
