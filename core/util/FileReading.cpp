// Capped whole-file reads and small filesystem queries.
#include "core/util/FileReading.h"
#include "core/util/Error.h"

#include <filesystem>
#include <fstream>

namespace maskscope {

std::string readFileCapped(const std::string& path, int64_t cap) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) throw Error("file not found", {path});
  auto size = static_cast<int64_t>(std::filesystem::file_size(path, ec));
  if (ec) throw Error("cannot read file size: " + ec.message(), {path});
  if (size > cap)
    throw Error("file is " + std::to_string(size) + " bytes, over the limit of " + std::to_string(cap) + " bytes (" +
                    std::to_string(cap >> 20) + " MiB) for this input",
                {path});
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot open file", {path});
  std::string data(static_cast<size_t>(size), '\0');
  in.read(data.data(), size);
  if (in.gcount() != size) throw Error("short read", {path});
  return data;
}

bool fileExists(const std::string& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec);
}

bool isDirectory(const std::string& path) {
  std::error_code ec;
  return std::filesystem::is_directory(path, ec);
}

std::string specFolder(const std::string& spec) {
  if (spec.empty() || spec.starts_with("builtin:")) return {};
  if (isDirectory(spec)) return spec;
  return std::filesystem::path(spec).parent_path().string();
}

std::string joinPath(const std::string& dir, const std::string& name) {
  return (std::filesystem::path(dir) / name).string();
}

} // namespace maskscope
