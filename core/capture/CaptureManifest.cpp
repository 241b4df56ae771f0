// Reading capture.json: a stranger's file, so every field is type-checked, strings shown to the user
// are capped and made printable, and file names must be plain names inside the capture folder.
#include "core/capture/CaptureManifest.h"
#include "core/util/Error.h"
#include "core/util/FileReading.h"
#include "core/util/JsonParse.h"
#include "core/util/Utf8.h"

#include <cstdio>
#include <filesystem>

namespace maskscope {

namespace {

constexpr size_t kMaxShown = 200;        // bytes of a name shown in the summary
constexpr size_t kMaxFactsBytes = 65536; // the user's facts are echoed only up to this size
constexpr int64_t kMaxTokenId = (int64_t(1) << 31) - 1;

// A name fit for one line of a terminal: valid UTF-8, control bytes as \xNN, at most kMaxShown bytes.
std::string printable(const std::string& s) {
  std::string clean = utf8::sanitize(s), out;
  for (unsigned char c : clean) {
    if (out.size() >= kMaxShown) {
      while (!out.empty() && (static_cast<unsigned char>(out.back()) & 0xC0) == 0x80) out.pop_back();
      if (!out.empty() && static_cast<unsigned char>(out.back()) >= 0xC0) out.pop_back();
      return out + "…";
    }
    if (c < 0x20 || c == 0x7F) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02X", c);
      out += buf;
    } else {
      out += char(c);
    }
  }
  return out;
}

class ManifestReader {
public:
  explicit ManifestReader(std::string path) : path_(std::move(path)) {}

  [[noreturn]] void fail(const std::string& field, const std::string& what) const {
    throw Error(what, {path_, -1, -1, -1, field});
  }
  const nlohmann::json* member(const nlohmann::json& obj, const char* key, const std::string& field) const {
    if (!obj.is_object()) fail(field, "expected an object");
    auto it = obj.find(key);
    return it == obj.end() || it->is_null() ? nullptr : &*it;
  }
  std::string text(const nlohmann::json& obj, const char* key, const std::string& where) const {
    const std::string field = where.empty() ? key : where + "." + key;
    const nlohmann::json* v = member(obj, key, where.empty() ? "(top level)" : where);
    if (!v) return {};
    if (!v->is_string()) fail(field, "expected a string or null, got " + std::string(v->type_name()));
    return printable(v->get<std::string>());
  }
  std::optional<int64_t> tokenId(const nlohmann::json& obj, const char* key, const std::string& where) const {
    const nlohmann::json* v = member(obj, key, where);
    if (!v) return std::nullopt;
    const std::string field = where + "." + key;
    if (!v->is_number_integer()) fail(field, "expected a token id (an integer) or null, got " + v->dump());
    const int64_t id = v->is_number_unsigned() && v->get<uint64_t>() > uint64_t(kMaxTokenId) ? -1 : v->get<int64_t>();
    if (id < 0 || id > kMaxTokenId) fail(field, "token id " + v->dump() + " is outside 0..2^31-1");
    return id;
  }
  // A file name the manifest gives: a plain name (no folder part, not hidden) that exists in folder.
  std::string fileIn(const std::string& folder, const std::string& name, const std::string& field,
                     bool mustExist) const {
    if (name.empty() || name.size() > 255 || name.find('/') != std::string::npos ||
        name.find('\\') != std::string::npos || name.front() == '.' || name.find('\0') != std::string::npos)
      fail(field, "\"" + printable(name) + "\" is not a plain file name inside the capture folder");
    const std::string path = joinPath(folder, name);
    if (mustExist && !fileExists(path)) fail(field, "the capture folder has no file " + printable(name));
    return path;
  }

private:
  std::string path_;
};

void readBatches(const ManifestReader& r, const nlohmann::json& j, CaptureManifest& m) {
  const nlohmann::json* batches = r.member(j, "batches", "(top level)");
  if (!batches || !batches->is_array() || batches->empty())
    r.fail("batches", "expected a non-empty list of the batch files written");
  if (batches->size() > kMaxCaptureBatches)
    r.fail("batches",
           std::to_string(batches->size()) + " batches, over the limit of " + std::to_string(kMaxCaptureBatches));
  for (size_t i = 0; i < batches->size(); ++i) {
    const std::string where = "batches[" + std::to_string(i) + "]";
    const nlohmann::json& b = (*batches)[i];
    const nlohmann::json* file = r.member(b, "file", where);
    if (!file || !file->is_string()) r.fail(where + ".file", "expected the batch file's name");
    const std::string name = file->get<std::string>();
    if (!name.ends_with(".safetensors")) r.fail(where + ".file", "a capture's batches are .safetensors files");
    m.batchFiles.push_back(r.fileIn(m.folder, name, where + ".file", true));
  }
}

void readTokenizer(const ManifestReader& r, const nlohmann::json& j, CaptureManifest& m) {
  const nlohmann::json* tok = r.member(j, "tokenizer", "(top level)");
  if (!tok) return;
  m.tokenizerName = r.text(*tok, "name_or_path", "tokenizer");
  m.padTokenId = r.tokenId(*tok, "pad_token_id", "tokenizer");
  m.eosTokenId = r.tokenId(*tok, "eos_token_id", "tokenizer");
  m.bosTokenId = r.tokenId(*tok, "bos_token_id", "tokenizer");
  m.paddingSide = r.text(*tok, "padding_side", "tokenizer");
  const nlohmann::json* folder = r.member(*tok, "folder", "tokenizer");
  if (!folder) return;
  if (!folder->is_string()) r.fail("tokenizer.folder", "expected a folder name or null");
  const std::string path = r.fileIn(m.folder, folder->get<std::string>(), "tokenizer.folder", false);
  // Only a folder holding a tokenizer maskscope reads; a capture without one is opened with --tokenizer.
  if (isDirectory(path) &&
      (fileExists(joinPath(path, "tokenizer.json")) || fileExists(joinPath(path, "tokenizer.model"))))
    m.tokenizerFolder = path;
}

} // namespace

bool isCaptureFolder(const std::string& path) {
  return !path.empty() && isDirectory(path) && fileExists(joinPath(path, kCaptureManifestName));
}

std::string captureFolderOf(const std::string& batchFile) {
  std::error_code ec;
  const std::filesystem::path parent = std::filesystem::path(batchFile).parent_path();
  const std::string folder = parent.empty() ? "." : parent.string();
  return isCaptureFolder(folder) ? folder : std::string();
}

CaptureManifest readCaptureManifest(const std::string& folder) {
  const std::string path = joinPath(folder, kCaptureManifestName);
  const nlohmann::json j = parseJsonOrThrow(readFileCapped(path, kMaxCaptureManifestBytes), {path});
  ManifestReader r(path);
  if (!j.is_object()) r.fail("(top level)", "a capture manifest is a JSON object");
  CaptureManifest m;
  m.folder = folder;
  m.format = r.text(j, "format", "");
  if (!m.format.starts_with("maskscope-capture/"))
    r.fail("format", "not a maskscope capture manifest (format \"" + m.format + "\")");
  if (m.format != "maskscope-capture/1")
    r.fail("format", "capture format " + m.format + " is newer than this maskscope reads (maskscope-capture/1)");
  readBatches(r, j, m);
  readTokenizer(r, j, m);
  const std::string templateName = r.text(j, "chat_template_file", "");
  if (!templateName.empty()) m.templateFile = r.fileIn(folder, templateName, "chat_template_file", true);
  if (const nlohmann::json* t = r.member(j, "trainer", "(top level)")) {
    m.trainerClass = r.text(*t, "class", "trainer");
    m.trainerModule = r.text(*t, "module", "trainer");
  }
  if (const nlohmann::json* c = r.member(j, "collator", "(top level)")) {
    m.collatorClass = r.text(*c, "class", "collator");
    m.collatorModule = r.text(*c, "module", "collator");
  }
  if (const nlohmann::json* f = r.member(j, "frameworks", "(top level)")) {
    if (!f->is_object()) r.fail("frameworks", "expected an object of name: version");
    for (const auto& [name, version] : f->items()) {
      if (m.frameworks.size() >= 32) break;
      m.frameworks.emplace_back(printable(name),
                                printable(version.is_string() ? version.get<std::string>() : version.dump()));
    }
  }
  m.writtenBy = r.text(j, "written_by", "");
  m.created = r.text(j, "created", "");
  if (const nlohmann::json* f = r.member(j, "facts", "(top level)"); f && f->is_object() && !f->empty())
    if (f->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).size() <= kMaxFactsBytes) m.facts = *f;
  return m;
}

nlohmann::json CaptureManifest::toJson() const {
  using nlohmann::json;
  auto orNull = [](const std::string& s) { return s.empty() ? json(nullptr) : json(s); };
  auto id = [](const std::optional<int64_t>& v) { return v ? json(*v) : json(nullptr); };
  json fw = json::object();
  for (const auto& [n, v] : frameworks) fw[n] = v;
  json files = json::array();
  for (const std::string& f : batchFiles) files.push_back(std::filesystem::path(f).filename().string());
  return {
      {"folder", folder},
      {"format", format},
      {"batches", files},
      {"trainer", trainerClass.empty() ? json(nullptr) : json{{"class", trainerClass}, {"module", trainerModule}}},
      {"collator", collatorClass.empty() ? json(nullptr) : json{{"class", collatorClass}, {"module", collatorModule}}},
      {"frameworks", fw},
      {"tokenizer", orNull(tokenizerName)},
      {"tokenizer_folder", orNull(tokenizerFolder)},
      {"template_file", orNull(templateFile)},
      {"pad_token_id", id(padTokenId)},
      {"eos_token_id", id(eosTokenId)},
      {"bos_token_id", id(bosTokenId)},
      {"padding_side", orNull(paddingSide)},
      {"written_by", orNull(writtenBy)},
      {"created", orNull(created)},
      {"facts", facts}};
}

namespace {

// "transformers 5.17.0, trl 0.19.1": the recorded framework versions, in the manifest's order.
std::string frameworkVersions(const std::vector<std::pair<std::string, std::string>>& frameworks) {
  std::string versions;
  for (const auto& [n, v] : frameworks) versions += (versions.empty() ? "" : ", ") + n + " " + v;
  return versions;
}

} // namespace

std::string CaptureManifest::oneLine() const {
  std::string s = trainerClass.empty() ? collatorClass : trainerClass;
  if (!trainerClass.empty() && !collatorClass.empty()) s += " with " + collatorClass;
  const std::string versions = frameworkVersions(frameworks);
  if (!versions.empty()) s += (s.empty() ? "" : " (") + versions + (s.empty() ? "" : ")");
  return s.empty() ? "a capture" : s;
}

std::string CaptureManifest::summaryText() const {
  auto idText = [](const std::optional<int64_t>& v) { return v ? std::to_string(*v) : std::string("none"); };
  std::string s = "capture: " + folder + " (" + std::to_string(batchFiles.size()) + " batch" +
                  (batchFiles.size() == 1 ? "" : "es") + (writtenBy.empty() ? "" : ", " + writtenBy) +
                  (created.empty() ? "" : ", " + created) + ")\n";
  if (!trainerClass.empty()) s += "  trainer: " + trainerClass + " (" + trainerModule + ")\n";
  if (!collatorClass.empty()) s += "  collator: " + collatorClass + " (" + collatorModule + ")\n";
  const std::string versions = frameworkVersions(frameworks);
  s += "  frameworks: " + (versions.empty() ? std::string("none recorded") : versions) + "\n";
  s += "  tokenizer: " + (tokenizerName.empty() ? std::string("not recorded") : tokenizerName) + "; pad " +
       idText(padTokenId) + ", eos " + idText(eosTokenId) + ", bos " + idText(bosTokenId) +
       (paddingSide.empty() ? "" : ", padding side " + paddingSide) + "\n";
  return s;
}

} // namespace maskscope
