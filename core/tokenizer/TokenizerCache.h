// The tokenizers already on this machine: folders of maskscope's cache and Hugging Face hub snapshots
// that hold a tokenizer.json or tokenizer.model, each named as a person knows it (the model of a hub
// snapshot, else the folder). The app's tokenizer picker and the CLI's "tokenizers that fit" list both
// read them here, so both name the same ones.
#pragma once
#include <string>
#include <vector>

namespace maskscope {

struct CachedTokenizer {
  std::string label; // "qwen3", "Qwen/Qwen3-0.6B"
  std::string path;  // the folder, as found under its root (what --tokenizer takes)
};

// The name a person knows a tokenizer by: the model of a hub snapshot ("org/name"), the folder of a
// tokenizer.json / tokenizer.model, the file name of any other file, builtin:* as is.
std::string tokenizerDisplayName(const std::string& spec);

// Folders directly under maskscopeRoots, and hub snapshots (models--org--name/snapshots/*) under
// hubRoots, that hold a tokenizer.json or tokenizer.model; one entry per real folder (symlinks
// resolved, the shortest label kept), sorted by label (case-insensitive). Missing roots are skipped.
std::vector<CachedTokenizer> cachedTokenizers(const std::vector<std::string>& maskscopeRoots,
                                              const std::vector<std::string>& hubRoots);
// <cache>/maskscope/tokenizers, and the hub cache ($HF_HUB_CACHE, $HF_HOME/hub or
// <cache>/huggingface/hub), <cache> being $XDG_CACHE_HOME or ~/.cache.
std::vector<std::string> defaultMaskscopeTokenizerRoots();
std::vector<std::string> defaultHubRoots();
// Both default lists, read now (the environment may change between calls).
std::vector<CachedTokenizer> defaultCachedTokenizers();

} // namespace maskscope
