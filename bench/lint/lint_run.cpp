// lint_run INPUT [--tokenizer T] [--template P] [--collator C] [--json] [--generation] [--explain R]
// [--max-findings N] [--shard K/N] [--micro-batch N] [--threads N] [--progress] [--colour]:
// the lint command without the app, for benchmarks and for trying it out.
#include "core/commands/LintCommand.h"

#include <cstring>
#include <iostream>
#include <string>
#include <unistd.h>

int main(int argc, char** argv) {
  using namespace maskscope;
  LintArgs a;
  bool json = false, colour = isatty(STDOUT_FILENO) != 0;
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i];
    auto val = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::cerr << k << " needs a value\n";
        std::exit(2);
      }
      return argv[++i];
    };
    if (k == "--tokenizer")
      a.tokenizerSpec = val();
    else if (k == "--template")
      a.templateSpec = val();
    else if (k == "--collator")
      a.collatorSpec = val();
    else if (k == "--json")
      json = true;
    else if (k == "--generation")
      a.generation = true;
    else if (k == "--explain")
      a.explain = val();
    else if (k == "--list-rules")
      a.listRules = true;
    else if (k == "--max-findings")
      a.maxFindings = std::stol(val());
    else if (k == "--shard")
      a.shard = val();
    else if (k == "--micro-batch")
      a.microBatch = std::stoi(val());
    else if (k == "--threads")
      a.threads = std::stoi(val());
    else if (k == "--show-rows")
      a.showRows = std::stoi(val());
    else if (k == "--progress")
      a.progress = true;
    else if (k == "--colour")
      colour = true;
    else if (k == "--no-colour")
      colour = false;
    else if (!k.starts_with("--") && a.input.empty())
      a.input = k;
    else {
      std::cerr << "unknown argument " << k << "\n";
      return 2;
    }
  }
  CommandIO io{std::cout, std::cerr, json, colour && !json};
  return runCommand(io, [&] { return runLint(a, io); });
}
