// `cctx profiles`: the profiles shipped with cctx, which --profile NAME, ComputeContext(profile=
// "NAME") and `extends: NAME` find by name: name, file and the first sentence of the file's
// leading comment as its description.
#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cctx/errors.hpp"
#include "cctx/host.hpp"
#include "cctx/safe_text.hpp"
#include "cli_common.hpp"

namespace cctx::cli {

namespace {

struct ProfilesArgs {
  std::string format = "table";
};

/// The first sentence of the comment block that opens a profile file, on one line ("" if none).
std::string description(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::string line;
  std::string text;
  while (std::getline(in, line) && line.starts_with("#")) {
    std::size_t start = line.find_first_not_of("# ");
    if (start == std::string::npos) break;  // an empty comment line ends the paragraph
    if (!text.empty()) text += ' ';
    text += line.substr(start);
  }
  // A sentence ends at ". " (or the text's last '.'); "e.g. " and the like are rare enough here.
  if (std::size_t end = text.find(". "); end != std::string::npos) text.resize(end + 1);
  return text;
}

void run_profiles(const ProfilesArgs& args) {
  const std::vector<std::string> names = Host::shipped_profiles();
  struct Row {
    std::string name, path, description;
  };
  std::vector<Row> rows;
  for (const std::string& name : names) {
    const std::filesystem::path file = std::filesystem::absolute(Host::shipped_profile(name));
    rows.push_back({name, file.string(), description(file)});
  }
  std::string out;
  if (args.format == "json") {
    nlohmann::ordered_json doc = nlohmann::ordered_json::array();
    for (const Row& r : rows) {
      doc.push_back({{"name", safe_text::utf8(r.name)},
                     {"path", safe_text::utf8(r.path)},
                     {"description", safe_text::utf8(r.description)}});
    }
    out = doc.dump(2) + "\n";
  } else {
    const std::filesystem::path folder = Host::default_profile_path().parent_path();
    if (rows.empty()) {
      out = "No profiles shipped with cctx in " + safe_text::terminal(folder.string()) + "\n";
    } else {
      // name  path  description, the first two padded (names and paths are ASCII here).
      std::size_t name_width = 4, path_width = 4;
      for (const Row& r : rows) {
        name_width = std::max(name_width, r.name.size());
        path_width = std::max(path_width, r.path.size());
      }
      auto pad = [](const std::string& s, std::size_t w) {
        return s + std::string(w - std::min(w, s.size()) + 2, ' ');
      };
      out = "Profiles shipped with cctx (--profile NAME, extends: NAME):\n";
      out += "  " + pad("name", name_width) + pad("path", path_width) + "description\n";
      for (const Row& r : rows) {
        out += "  " + pad(safe_text::terminal(r.name), name_width) +
               pad(safe_text::terminal(r.path), path_width) + safe_text::terminal(r.description) +
               "\n";
      }
    }
  }
  write_stdout(out);
}

}  // namespace

void add_profiles_command(CLI::App& app) {
  auto args = std::make_shared<ProfilesArgs>();
  CLI::App* cmd = app.add_subcommand("profiles", "The profiles shipped with cctx, usable by name");
  cmd->add_option("--format", args->format, "table | json")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  cmd->callback([args] { run_profiles(*args); });
}

}  // namespace cctx::cli
