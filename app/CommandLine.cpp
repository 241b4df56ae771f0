// CLI11-based parsing of the commands (docs/cli.md) into the core's argument structs.
#include "app/CommandLine.h"
#include "core/collate/CollatorSpec.h"
#include "core/commands/CollateCommand.h"
#include "core/commands/CommandIO.h"
#include "core/commands/LintCommand.h"
#include "core/commands/LossCommand.h"
#include "core/commands/RenderCommand.h"
#include "core/commands/TokenizeCommand.h"
#include "ui/Snapshot.h"

#include "core/util/Error.h"

#include <CLI/CLI.hpp>

#include <cstring>
#include <filesystem>
#include <iostream>
#include <set>
#include <unistd.h>

namespace maskscope {

namespace {

const std::set<std::string>& commandNames() {
  static const std::set<std::string> names = {"tokenize", "render", "collate", "lint", "loss", "snapshot"};
  return names;
}

void addBatchInputs(CLI::App* cmd, BatchInputs& in, std::string& rows) {
  cmd->add_option("--tokenizer", in.tokenizerSpec, "tokenizer.model, tokenizer.json, model folder or builtin:demo");
  cmd->add_option("--template", in.templateSpec, "built-in name, .jinja, tokenizer_config.json or model folder");
  cmd->add_option("--collator", in.collatorSpec, "preset[,key=value...], collator JSON file, or key=value,...");
  cmd->add_option("--data", in.dataSpec, "dataset file (JSONL/JSON) or builtin:demo");
  cmd->add_option("--rows", rows, "rows A:B (half-open, 0-based)");
}

} // namespace

int runHeadless(int argc, char** argv) {
  if (argc < 2) return -1;
  std::string first = argv[1];
  const bool isCommand = commandNames().count(first) > 0;
  const bool isGlobalFlag = first == "--version" || first == "--help" || first == "-h";
  if (!isCommand && !isGlobalFlag) {
    // Files for the app. A bare word that is neither a command nor an existing path is a typo.
    std::error_code ec;
    if (!first.starts_with("-") && first.find('/') == std::string::npos && first.find('.') == std::string::npos &&
        !std::filesystem::exists(first, ec)) {
      std::cerr << "maskscope: unknown command \"" << first << "\" (commands:";
      for (const auto& n : commandNames()) std::cerr << " " << n;
      std::cerr << "; or give dataset, batch or model files to open the app)\n";
      return 2;
    }
    return -1;
  }

  CLI::App app{"maskscope: see and debug the masks of LLM fine-tuning"};
  app.set_version_flag("--version", std::string("maskscope ") + MASKSCOPE_VERSION);
  app.require_subcommand(0, 1);
  app.footer("Without a command, maskscope opens the desktop app: `maskscope` on the built-in demo,\n"
             "`maskscope FILE...` on a dataset (.jsonl/.json), a batch dump (.json/.jsonl/.safetensors/.pt)\n"
             "or a model folder. Every command takes --json and --help. Exit status: 0 success, 1 problems\n"
             "found, 2 unusable input.");
  bool json = false;

  TokenizeArgs tok;
  auto* tokenize = app.add_subcommand("tokenize", "token ids, pieces and UTF-8 byte offsets of a text");
  tokenize->add_option("--tokenizer", tok.tokenizerSpec, "tokenizer spec")->required();
  tokenize->add_option("--text", tok.text, "the text")->each([&](const std::string&) { tok.haveText = true; });
  tokenize->add_option("--text-file", tok.textFile, "a UTF-8 file to tokenize whole");
  tokenize->add_option("--jsonl", tok.jsonlFile, "one JSON string (or {\"text\": ...}) per line");
  tokenize->add_flag("--add-special-tokens", tok.addSpecialTokens, "add BOS/EOS as the post-processor does");
  tokenize->add_flag("--split-special-tokens", tok.splitSpecialTokens, "treat special-token strings as text");
  tokenize->add_flag("--json", json, "machine output on stdout");

  BatchInputs collateIn;
  std::string collateRows;
  auto* collate = app.add_subcommand("collate", "the batch a collator builds from dataset rows");
  addBatchInputs(collate, collateIn, collateRows);
  bool listPresets = false; // --tokenizer and --data are checked by runCollate, so this flag needs neither
  collate->add_flag("--list-presets", listPresets, "list the collator presets with their meaning");
  collate->footer(collatorPresetsText());
  collate->add_flag("--json", json, "machine output on stdout");

  RenderArgs renderArgs;
  std::vector<std::string> renderVars;
  std::string renderNow;
  auto* render = app.add_subcommand("render", "a conversation through a chat template, as apply_chat_template");
  render->add_option("--template", renderArgs.templateSpec,
                     "built-in name, .jinja, tokenizer_config.json or model folder");
  render->add_option("--tokenizer", renderArgs.tokenizerSpec, "tokenizer spec (for its special tokens and folder)");
  render->add_option("--messages", renderArgs.messagesFile, "JSON list of messages, or an object with \"messages\"");
  render->add_option("--data", renderArgs.dataFile, "dataset file (with --row)");
  render->add_option("--row", renderArgs.row, "0-based dataset row");
  render->add_flag("--add-generation-prompt", renderArgs.addGenerationPrompt, "end with the assistant header");
  render->add_option("--var", renderVars, "template variable k=v (repeatable)");
  render->add_option("--now", renderNow, "the date strftime_now sees, e.g. 2024-07-26");
  render->add_flag("--json", json, "machine output on stdout");

  LintArgs lintArgs;
  auto* lint = app.add_subcommand("lint", "name every masking bug of a dataset or batch dump");
  lint->add_option("INPUT", lintArgs.input,
                   "dataset (JSONL/JSON, builtin:demo) or batch dump (.json/.jsonl/.safetensors/.pt)");
  lint->add_option("--tokenizer", lintArgs.tokenizerSpec, "tokenizer spec (datasets: default builtin:demo)");
  lint->add_option("--template", lintArgs.templateSpec, "chat template (default: the tokenizer's own)");
  lint->add_option("--collator", lintArgs.collatorSpec,
                   "collator spec (datasets: default 'default'; dumps: the intended collator)");
  lint->add_option("--model", lintArgs.modelSpec, "model folder (its tokenizer is used when --tokenizer is absent)");
  lint->add_flag("--generation", lintArgs.generation, "the input is a generation batch (checks right padding)");
  lint->add_option("--max-findings", lintArgs.maxFindings, "findings listed (default 1000; the summary counts all)");
  lint->add_option("--shard", lintArgs.shard,
                   "K/N: lint rows with index % N == K (JSON of shards merges by concatenation)");
  lint->add_option("--micro-batch", lintArgs.microBatch, "rows per micro-batch (default 8)");
  lint->add_option("--threads", lintArgs.threads, "worker threads (default: all cores)");
  lint->add_option("--explain", lintArgs.explain, "print a rule's explanation (RULE or 'all'); no INPUT needed");
  lint->add_flag("--list-rules", lintArgs.listRules, "list every rule");
  lint->add_flag("--progress", lintArgs.progress, "progress on stderr even when it is not a terminal");
  lint->add_option("--show-rows", lintArgs.showRows, "offending rows drawn as tokens (default 3)");
  lint->add_flag("--json", json, "machine output on stdout");

  LossArgs lossArgs;
  std::string lossRows;
  bool noGradients = false;
  auto* loss = app.add_subcommand("loss", "the model's loss with the masks as given and fixed (LibTorch)");
  addBatchInputs(loss, lossArgs.inputs, lossRows);
  loss->add_option("--batch", lossArgs.inputs.batchFile, "a batch dump: .json, .jsonl, .safetensors or .pt");
  loss->add_option("--model", lossArgs.modelSpec, "Hugging Face model folder or builtin:tiny")->required();
  loss->add_option("--device", lossArgs.device, "auto, cpu or cuda")->check(CLI::IsMember({"auto", "cpu", "cuda"}));
  loss->add_flag("--no-gradients", noGradients, "skip the gradient-share backward passes");
  loss->add_flag("--json", json, "machine output on stdout");

  SnapshotArgs snap;
  std::string snapSize;
  auto* snapshot = app.add_subcommand("snapshot", "render one view of the app off screen to a PNG");
  snapshot->add_option("--view", snap.view, snapshotViewNames());
  snapshot->add_option("--out", snap.out, "the PNG (or .svg) to write")->required();
  snapshot->add_option("--row", snap.row, "dataset row to show");
  snapshot->add_option("--position", snap.position, "selected position (softmax query, strip and grid highlight)");
  snapshot->add_option("--size", snapSize, "WxH in pixels");
  snapshot->add_option("--theme", snap.theme, "light or dark")->check(CLI::IsMember({"light", "dark"}));
  snapshot->add_option("--compare", snap.compare, "A,B: the two collators of the compare view");
  snapshot->add_option("--step", snap.teachingStep, "teaching step (1-based; 0 = the introduction)");
  snapshot->add_option("--zoom", snap.zoom, "attention grid zoom around the selected position");
  snapshot->add_flag("--example", snap.softmaxExample, "softmax view: the 2.0 / 1.0 / 0.1 teaching row");
  snapshot->add_option("--batch", snap.inputs.batchFile, "a batch dump instead of a dataset");
  snapshot->add_option("--model", snap.modelSpec, "model folder or builtin:tiny (real losses and attention)");
  addBatchInputs(snapshot, snap.inputs, collateRows);
  snapshot->add_flag("--json", json, "machine output on stdout");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e, std::cout, std::cerr);
    return e.get_exit_code() == 0 ? 0 : (code == 0 ? 0 : 2);
  }
  CommandIO io{std::cout, std::cerr, json, isatty(STDOUT_FILENO) != 0};
  if (tokenize->parsed()) return runCommand(io, [&] { return runTokenize(tok, io); });
  if (collate->parsed())
    return runCommand(io, [&] {
      if (listPresets) return listCollatorPresets(io);
      if (!collateRows.empty()) parseRowRange(collateRows, collateIn.rowBegin, collateIn.rowEnd);
      return runCollate(collateIn, io);
    });
  if (render->parsed())
    return runCommand(io, [&] {
      for (const auto& v : renderVars) {
        auto eq = v.find('=');
        if (eq == std::string::npos) throw Error("--var: expected k=v, got \"" + v + "\"");
        renderArgs.vars.emplace_back(v.substr(0, eq), v.substr(eq + 1));
      }
      if (!renderNow.empty()) renderArgs.now = renderNow;
      return runRender(renderArgs, io);
    });
  if (lint->parsed()) return runCommand(io, [&] { return runLint(lintArgs, io); });
  if (loss->parsed())
    return runCommand(io, [&] {
      if (!lossRows.empty()) parseRowRange(lossRows, lossArgs.inputs.rowBegin, lossArgs.inputs.rowEnd);
      lossArgs.gradients = !noGradients;
      return runLoss(lossArgs, io);
    });
  if (snapshot->parsed())
    return runCommand(io, [&] {
      if (!snapSize.empty()) {
        auto x = snapSize.find('x');
        if (x == std::string::npos) throw Error("--size: expected WxH, got \"" + snapSize + "\"");
        snap.width = std::stoi(snapSize.substr(0, x));
        snap.height = std::stoi(snapSize.substr(x + 1));
      }
      return runSnapshot(snap, io);
    });
  std::cout << app.help();
  return 0;
}

} // namespace maskscope
