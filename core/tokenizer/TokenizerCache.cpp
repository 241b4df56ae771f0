// Tokenizer folders on disk, found with std::filesystem; every error (a root that is missing or not
// readable) only skips that root.
#include "core/tokenizer/TokenizerCache.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>

namespace fs = std::filesystem;

namespace maskscope {

namespace {

bool holdsTokenizer(const fs::path& folder) {
  std::error_code ec;
  return fs::is_regular_file(folder / "tokenizer.json", ec) || fs::is_regular_file(folder / "tokenizer.model", ec);
}

// .../models--Qwen--Qwen3-0.6B/snapshots/<hash> -> "Qwen/Qwen3-0.6B"; empty when not a snapshot.
std::string hubModelName(const fs::path& folder) {
  std::vector<std::string> parts;
  for (const fs::path& p : folder.lexically_normal())
    if (!p.empty() && p != "/") parts.push_back(p.string());
  while (!parts.empty() && parts.back().empty()) parts.pop_back();
  if (parts.size() < 3 || parts[parts.size() - 2] != "snapshots") return {};
  std::string repo = parts[parts.size() - 3];
  if (!repo.starts_with("models--")) return {};
  repo = repo.substr(8);
  std::string out;
  for (size_t i = 0; i < repo.size(); ++i) {
    if (repo.compare(i, 2, "--") == 0) {
      out += '/';
      ++i;
    } else {
      out += repo[i];
    }
  }
  return out;
}

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

std::string cacheHome() {
  const std::string xdg = env("XDG_CACHE_HOME");
  if (!xdg.empty()) return xdg;
  return env("HOME") + "/.cache";
}

std::vector<fs::path> subfolders(const fs::path& root) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_directory(ec)) out.push_back(it->path());
  std::sort(out.begin(), out.end());
  return out;
}

std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

} // namespace

std::string tokenizerDisplayName(const std::string& spec) {
  if (spec.empty()) return "builtin:demo";
  if (spec.starts_with("builtin:")) return spec;
  std::error_code ec;
  fs::path path = fs::absolute(fs::path(spec), ec);
  if (ec) path = fs::path(spec);
  path = path.lexically_normal();
  if (!path.has_filename()) path = path.parent_path(); // "folder/"
  fs::path folder = path;
  if (!fs::is_directory(path, ec)) {
    const std::string file = path.filename().string();
    if (file != "tokenizer.json" && file != "tokenizer.model") return file;
    folder = path.parent_path();
  }
  const std::string hub = hubModelName(folder);
  return hub.empty() ? folder.filename().string() : hub;
}

std::vector<CachedTokenizer> cachedTokenizers(const std::vector<std::string>& maskscopeRoots,
                                              const std::vector<std::string>& hubRoots) {
  std::map<std::string, CachedTokenizer> byTarget; // canonical folder -> entry
  auto add = [&](const fs::path& folder) {
    if (!holdsTokenizer(folder)) return;
    std::error_code ec;
    const fs::path target = fs::canonical(folder, ec);
    const CachedTokenizer c{tokenizerDisplayName(folder.string()), folder.string()};
    const std::string key = ec ? folder.string() : target.string();
    auto it = byTarget.find(key);
    if (it == byTarget.end() || c.label.size() < it->second.label.size()) byTarget[key] = c;
  };
  for (const std::string& root : maskscopeRoots)
    for (const fs::path& f : subfolders(root)) add(f);
  for (const std::string& root : hubRoots)
    for (const fs::path& repo : subfolders(root))
      if (repo.filename().string().starts_with("models--"))
        for (const fs::path& snap : subfolders(repo / "snapshots")) add(snap);
  std::vector<CachedTokenizer> out;
  for (auto& [key, c] : byTarget) out.push_back(std::move(c));
  std::stable_sort(out.begin(), out.end(),
                   [](const CachedTokenizer& a, const CachedTokenizer& b) { return lower(a.label) < lower(b.label); });
  return out;
}

std::vector<std::string> defaultMaskscopeTokenizerRoots() { return {cacheHome() + "/maskscope/tokenizers"}; }

std::vector<std::string> defaultHubRoots() {
  if (const std::string hub = env("HF_HUB_CACHE"); !hub.empty()) return {hub};
  if (const std::string home = env("HF_HOME"); !home.empty()) return {home + "/hub"};
  return {cacheHome() + "/huggingface/hub"};
}

std::vector<CachedTokenizer> defaultCachedTokenizers() {
  return cachedTokenizers(defaultMaskscopeTokenizerRoots(), defaultHubRoots());
}

} // namespace maskscope
