// Reading whole files with a size cap, so a stranger's 50 GB "config" cannot exhaust memory.
#pragma once
#include <cstdint>
#include <string>

namespace maskscope {

inline constexpr int64_t kDefaultFileCap = int64_t(512) << 20; // 512 MiB

// Reads path whole; throws Error naming the file when missing, unreadable or over cap.
std::string readFileCapped(const std::string& path, int64_t cap = kDefaultFileCap);
bool fileExists(const std::string& path);
bool isDirectory(const std::string& path);
std::string joinPath(const std::string& dir, const std::string& name);
// The folder a --tokenizer/--model spec lives in (where tokenizer_config.json sits): the spec itself
// when it is a folder, its parent when it is a file, empty for builtin:* and empty specs.
std::string specFolder(const std::string& spec);

} // namespace maskscope
