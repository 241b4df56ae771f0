// The GPU-machine driver's shared parts (tools/cuda): its argv options, JSON-line output and the modes
// it runs against a loaded ForwardEngine. Torch-free: only core/forward/ForwardEngine.h's plain types.
#pragma once
#include "core/forward/ForwardEngine.h"

#include <nlohmann/json.hpp>

#include <map>
#include <string>

namespace maskscope::cudadriver {

// "--name value" pairs after the mode (a bare "--flag" holds "1").
struct Options {
  std::map<std::string, std::string> values;
  std::string get(const std::string& name, const std::string& fallback) const;
  int64_t number(const std::string& name, int64_t fallback) const; // throws on a non-number
};

// One JSON object per line on stdout, flushed (the check script greps and tabulates them).
void emit(const nlohmann::json& line);

// goldens: every fixture of --data (tests/data/engine) x golden batch, per-token NLL against the
// repo's goldens.json and transformers' engine_nll.jsonl (--transformers); 1 on any failure.
int runGoldens(ForwardEngine& engine, const Options& options);
// bench: forward + per-token NLL and the loss comparison on a Qwen3-0.6B-shaped model, timed.
int runBench(ForwardEngine& engine, const Options& options);

} // namespace maskscope::cudadriver
