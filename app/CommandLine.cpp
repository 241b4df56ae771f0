// CLI11-based parsing of the commands (docs/cli.md) into the core's argument structs.
#include "app/CommandLine.h"
#include "core/collate/CollatorSpec.h"
#include "core/commands/CollateCommand.h"
#include "core/commands/CommandIO.h"
#include "core/commands/LintCommand.h"
#include "core/commands/LossCommand.h"
#include "core/commands/PatchTemplateCommand.h"
#include "core/commands/RenderCommand.h"
#include "core/commands/RenderDiffCommand.h"
#include "core/commands/TokenizeCommand.h"
#include "core/commands/TrainAbCommand.h"
#include "core/mask/EffectiveAttention.h"
#include "ui/shell/AppArguments.h"
#include "ui/shell/Snapshot.h"

#include "core/util/Error.h"

#include <CLI/CLI.hpp>

#include <cstring>
#include <filesystem>
#include <functional>
#include <iostream>
#include <memory>
#include <set>
#include <unistd.h>
#include <vector>

namespace maskscope {

namespace {

// A command's runner: the parsed arguments it owns, run once parsing succeeded.
using Runner = std::function<int(CommandIO&)>;

// One headless command: its name, its one-line help, and the function that declares its options
// on a CLI11 subcommand and returns the runner reading them.
struct CommandSpec {
  const char* name;
  const char* description;
  Runner (*declare)(CLI::App* cmd);
};

// --rows A:B, the same for every command that takes it: the returned function parses it when
// the command runs (a bad range is an input error, exit 2).
std::function<void()> addRowsOption(CLI::App* cmd, long& begin, long& end);

// --var k=v (repeatable): a template variable; the returned step checks and stores them in out.
std::function<void()> addVarOption(CLI::App* cmd, std::vector<std::pair<std::string, std::string>>& out) {
  auto vars = std::make_shared<std::vector<std::string>>();
  cmd->add_option("--var", *vars, "template variable k=v (repeatable; true/false are booleans)");
  return [vars, &out] {
    for (const auto& v : *vars) {
      auto eq = v.find('=');
      if (eq == std::string::npos || eq == 0) throw Error("--var: expected k=v, got \"" + v + "\"");
      out.emplace_back(v.substr(0, eq), v.substr(eq + 1));
    }
  };
}

std::function<void()> addRowsOption(CLI::App* cmd, long& begin, long& end) {
  auto rows = std::make_shared<std::string>();
  cmd->add_option("--rows", *rows, "rows A:B (half-open, 0-based)");
  return [rows, &begin, &end] {
    if (!rows->empty()) parseRowRange(*rows, begin, end);
  };
}

// --min-pixels / --max-pixels: Qwen2-VL's processor bounds, as AutoProcessor.from_pretrained(...,
// min_pixels=, max_pixels=) takes them; every command that expands images (collate, loss, snapshot, lint).
void addPixelBoundsOptions(CLI::App* cmd, int64_t& minPixels, int64_t& maxPixels) {
  cmd->add_option("--min-pixels", minPixels, "the image processor's min_pixels (Qwen2-VL smart_resize)")
      ->check(CLI::Range(int64_t(1), int64_t(1) << 40));
  cmd->add_option("--max-pixels", maxPixels, "the image processor's max_pixels (Qwen2-VL smart_resize)")
      ->check(CLI::Range(int64_t(1), int64_t(1) << 40));
}

// Declares the options that build a batch. The returned function, called when the command runs,
// applies --rows and --var to `in`: their text lives in that function (never dangling), and a bad
// value is an input error like any other (exit 2, "maskscope: error: --rows ...").
std::function<void()> addBatchInputs(CLI::App* cmd, BatchInputs& in) {
  cmd->add_option("--tokenizer", in.tokenizerSpec, "tokenizer.model, tokenizer.json, model folder or builtin:demo");
  cmd->add_option("--template", in.templateSpec, "built-in name, .jinja, tokenizer_config.json or model folder");
  cmd->add_option("--collator", in.collatorSpec,
                  "preset[,key=value...], collator JSON file, key=value,..., or a framework spec (JSON with "
                  "\"framework\", inline or a file; a framework config file)");
  cmd->add_option("--data", in.dataSpec, "dataset file (JSONL/JSON) or builtin:demo");
  auto applyRows = addRowsOption(cmd, in.rowBegin, in.rowEnd);
  auto applyVars = addVarOption(cmd, in.vars);
  addPixelBoundsOptions(cmd, in.minPixels, in.maxPixels);
  return [applyRows, applyVars] {
    applyRows();
    applyVars();
  };
}

Runner declareTokenize(CLI::App* cmd) {
  auto tok = std::make_shared<TokenizeArgs>();
  cmd->add_option("--tokenizer", tok->tokenizerSpec, "tokenizer spec")->required();
  cmd->add_option("--text", tok->text, "the text")->each([tok](const std::string&) { tok->haveText = true; });
  cmd->add_option("--text-file", tok->textFile, "a UTF-8 file to tokenize whole");
  cmd->add_option("--jsonl", tok->jsonlFile, "one JSON string (or {\"text\": ...}) per line");
  cmd->add_flag("--add-special-tokens", tok->addSpecialTokens, "add BOS/EOS as the post-processor does");
  cmd->add_flag("--split-special-tokens", tok->splitSpecialTokens, "treat special-token strings as text");
  return [tok](CommandIO& io) { return runTokenize(*tok, io); };
}

Runner declareCollate(CLI::App* cmd) {
  auto in = std::make_shared<BatchInputs>();
  auto table = std::make_shared<CollateTableOptions>();
  auto listPresets = std::make_shared<bool>(false);
  auto applyRows = addBatchInputs(cmd, *in);
  // --tokenizer and --data are checked by runCollate, so that --list-presets needs neither.
  cmd->add_flag("--list-presets", *listPresets, "list the collator presets with their meaning");
  cmd->footer(collatorPresetsText());
  cmd->add_flag("--table", table->enabled, "per-position table: token, id, label, attention, position id, role");
  cmd->add_option("--hide", table->hide, "with --table: hide system,whitespace,padding (comma list)");
  cmd->add_option("--table-format", table->format, "with --table: text, markdown, csv or html");
  cmd->add_option("--stage", table->stage,
                  "framework specs: batch (the framework's returned dict, default) or prepared (its prepared rows)")
      ->check(CLI::IsMember({"batch", "prepared"}));
  cmd->add_option("--side", table->side, "preference data: chosen, rejected or both (default)")
      ->check(CLI::IsMember({"chosen", "rejected", "both"}));
  cmd->add_flag("--mlm", table->mlm,
                "the BERT aside: [MASK] at a seeded 15 % of each row's real tokens, labels, bidirectional mask");
  cmd->add_option("--seed", table->seed, "with --mlm: the seed of the positions drawn (default 0)")
      ->needs(cmd->get_option("--mlm"));
  return [in, applyRows, table, listPresets](CommandIO& io) {
    if (*listPresets) return listCollatorPresets(io);
    applyRows();
    return runCollate(*in, io, *table);
  };
}

Runner declareRender(CLI::App* cmd) {
  auto args = std::make_shared<RenderArgs>();
  auto now = std::make_shared<std::string>();
  cmd->add_option("--template", args->templateSpec, "built-in name, .jinja, tokenizer_config.json or model folder");
  cmd->add_option("--tokenizer", args->tokenizerSpec, "tokenizer spec (for its special tokens and folder)");
  cmd->add_option("--messages", args->messagesFile, "JSON list of messages, or an object with \"messages\"");
  cmd->add_option("--data", args->dataFile, "dataset file (with --row)");
  cmd->add_option("--row", args->row, "0-based dataset row");
  cmd->add_option("--tools", args->toolsFile, "JSON list of tool schemas, passed to the template as tools");
  cmd->add_flag("--add-generation-prompt", args->addGenerationPrompt, "end with the assistant header");
  auto applyVars = addVarOption(cmd, args->vars);
  cmd->add_option("--now", *now, "the date strftime_now sees, e.g. 2024-07-26");
  return [args, applyVars, now](CommandIO& io) {
    applyVars();
    if (!now->empty()) args->now = *now;
    return runRender(*args, io);
  };
}

Runner declareRenderDiff(CLI::App* cmd) {
  auto a = std::make_shared<RenderDiffArgs>();
  cmd->add_option("--tokenizer", a->tokenizerSpec, "tokenizer.model, tokenizer.json, model folder or builtin:demo")
      ->required();
  cmd->add_option("--template", a->templateSpec, "built-in name, .jinja, tokenizer_config.json or model folder");
  cmd->add_option("--data", a->dataSpec, "dataset file (JSONL/JSON) or builtin:demo")->required();
  cmd->add_option("--row", a->row, "0-based dataset row (default: every row)");
  cmd->add_option("--collator", a->collatorSpec, "the training collator (its add_bos and truncation); default default");
  auto applyVars = addVarOption(cmd, a->vars);
  cmd->add_flag("--fail-on-diff", a->failOnDiff, "exit 1 when a turn's training and serving tokens differ");
  return [a, applyVars](CommandIO& io) {
    applyVars();
    return runRenderDiff(*a, io);
  };
}

// --attn-implementation: the attention code whose mask lint, loss and snapshot judge the batch under
// (core/mask/EffectiveAttention.h); another value is refused (exit 2) naming the allowed ones.
void addAttnImplementationOption(CLI::App* cmd, std::string& target) {
  std::vector<std::string> names;
  for (AttnImplementation a : kAttnImplementations) names.emplace_back(attnImplementationName(a));
  cmd->add_option("--attn-implementation", target,
                  "eager, sdpa, flash_attention_2 or flex_attention: the attention whose mask is judged (default: "
                  "what the dump or framework implies, stated in the output)")
      ->check(CLI::IsMember(names));
}

Runner declareLint(CLI::App* cmd) {
  auto a = std::make_shared<LintArgs>();
  cmd->add_option("INPUT", a->input,
                  "dataset (JSONL/JSON, builtin:demo) or batch dump (.json/.jsonl/.safetensors/.pt)");
  cmd->add_option("--tokenizer", a->tokenizerSpec, "tokenizer spec (datasets: default builtin:demo)");
  cmd->add_option("--template", a->templateSpec, "chat template (default: the tokenizer's own)");
  cmd->add_option("--collator", a->collatorSpec,
                  "collator spec (datasets: default 'default'; dumps: the intended collator)");
  cmd->add_option("--model", a->modelSpec, "model folder (its tokenizer is used when --tokenizer is absent)");
  auto applyVars = addVarOption(cmd, a->vars);
  cmd->add_flag("--generation", a->generation, "the input is a generation batch (checks right padding)");
  cmd->add_option("--max-findings", a->maxFindings, "findings listed (default 1000; the summary counts all)");
  cmd->add_option("--findings-out", a->findingsOut,
                  "FILE.tsv|.csv|.jsonl: every finding (none capped): line, rule, severity, scope, message, fix");
  cmd->add_option("--report", a->reportPath,
                  "FILE.html: a self-contained audit report of the dataset (verdict, counts, rows drawn)");
  cmd->add_option("--shard", a->shard,
                  "K/N: lint micro-batches with index % N == K (with --json: a shard report for --merge)");
  cmd->add_option("--merge", a->merge, "SHARD.json...: merge shard reports into the unsharded report");
  cmd->add_option("--micro-batch", a->microBatch, "rows per micro-batch (default 8)");
  cmd->add_option("--threads", a->threads, "worker threads (default: all cores)");
  cmd->add_option("--explain", a->explain, "print a rule's explanation (RULE or 'all'); no INPUT needed");
  cmd->add_flag("--list-rules", a->listRules, "list every rule");
  cmd->add_flag("--progress", a->progress, "progress on stderr even when it is not a terminal");
  cmd->add_option("--show-rows", a->showRows, "offending rows drawn as tokens (default 3)");
  cmd->add_option("--pad-id", a->padId, "dumps: the pad id (trailing runs of it are padding; over pad_token_id)");
  addAttnImplementationOption(cmd, a->attnImplementation);
  addPixelBoundsOptions(cmd, a->minPixels, a->maxPixels); // datasets: the image expansion, as collate's
  cmd->add_option("--fail-on", a->failOn, "exit 1 on findings of this severity or above: error (default) or warning")
      ->check(CLI::IsMember({"error", "warning"}));
  auto applyRows = addRowsOption(cmd, a->rowBegin, a->rowEnd); // datasets: lint rows A:B only
  return [a, applyVars, applyRows](CommandIO& io) {
    applyVars();
    applyRows();
    return runLint(*a, io);
  };
}

Runner declareLoss(CLI::App* cmd) {
  auto a = std::make_shared<LossArgs>();
  auto noGradients = std::make_shared<bool>(false);
  auto applyRows = addBatchInputs(cmd, a->inputs);
  cmd->add_option("--batch", a->inputs.batchFile, "a batch dump: .json, .jsonl, .safetensors or .pt");
  cmd->add_option("--model", a->modelSpec, "Hugging Face model folder or builtin:tiny")->required();
  cmd->add_option("--device", a->device, "auto, cpu or cuda")->check(CLI::IsMember({"auto", "cpu", "cuda"}));
  cmd->add_flag("--no-gradients", *noGradients, "skip the gradient-share backward passes");
  cmd->add_flag("--lessons", a->lessons,
                "the masking lessons instead: per-position gradients, an AdamW step, a prompt token changed");
  addAttnImplementationOption(cmd, a->attnImplementation);
  return [a, applyRows, noGradients](CommandIO& io) {
    applyRows();
    a->gradients = !*noGradients;
    return runLoss(*a, io);
  };
}

Runner declareTrainAB(CLI::App* cmd) {
  auto a = std::make_shared<TrainArgs>();
  cmd->add_option("--experiment", a->experiment, "stop-token, pad-graded, prompt-graded, packing or grad-accum");
  cmd->add_option("--collator-a", a->collatorA,
                  "run A's collator spec (with --collator-b: instead of the experiment's)");
  cmd->add_option("--collator-b", a->collatorB, "run B's collator spec");
  cmd->add_option("--model", a->modelSpec, "builtin:tiny (default) or a model folder");
  cmd->add_option("--init", a->init, "pretrained (default) or random (the architecture with fresh seeded weights)");
  cmd->add_option("--data", a->dataSpec, "dataset (default builtin:demo)");
  cmd->add_option("--tokenizer", a->tokenizerSpec, "tokenizer spec (default builtin:demo)");
  cmd->add_option("--template", a->templateSpec, "chat template (default: the tokenizer's own)");
  cmd->add_option("--steps", a->steps, "optimizer steps per run (default 60)");
  cmd->add_option("--batch-size", a->batchSize, "conversations per step (default 8)");
  cmd->add_option("--micro-batch", a->microBatch, "rows per micro-batch (default: the experiment's, else the batch)");
  cmd->add_option("--lr", a->learningRate,
                  "peak learning rate (default: the experiment's: 0.001 for stop-token, 0.0001 for pad-graded, "
                  "0.0003 for the others)");
  cmd->add_option("--warmup", a->warmup, "warm-up steps (default 10)");
  cmd->add_option("--schedule", a->schedule, "cosine or constant")->check(CLI::IsMember({"cosine", "constant"}));
  cmd->add_option("--seed", a->seed, "seed of the data order and the random init (default 0)");
  cmd->add_option("--eval-every", a->evalEvery, "held-out loss every N steps (default 10)");
  cmd->add_option("--held-out-every", a->heldOutEvery, "hold out every Nth conversation (default 8)");
  cmd->add_option("--max-new-tokens", a->maxNewTokens, "generation length limit (default 64)");
  cmd->add_option("--threads", a->threads, "CPU threads of the training (default 1: bit-reproducible)");
  cmd->add_option("--device", a->device, "cpu (default), cuda or auto")->check(CLI::IsMember({"auto", "cpu", "cuda"}));
  return [a](CommandIO& io) { return runTrainAB(*a, io); };
}

Runner declareSnapshot(CLI::App* cmd) {
  auto snap = std::make_shared<SnapshotArgs>();
  auto size = std::make_shared<std::string>();
  cmd->add_option("--view", snap->view, snapshotViewNames());
  cmd->add_option("--out", snap->out, "the PNG (or .svg) to write")->required();
  cmd->add_option("--row", snap->row, "dataset row to show");
  cmd->add_option("--position", snap->position, "selected position (softmax query, strip and grid highlight)");
  cmd->add_option("--size", *size, "WxH in pixels");
  cmd->add_option("--theme", snap->theme, "light or dark")->check(CLI::IsMember({"light", "dark"}));
  cmd->add_option("--compare", snap->compare, "A,B: the two collators of the compare view");
  cmd->add_option("--step", snap->teachingStep, "teaching step (1-based; 0 = the introduction)");
  cmd->add_option("--zoom", snap->zoom, "attention grid zoom around the selected position");
  cmd->add_flag("--example", snap->softmaxExample, "softmax view: the 2.0 / 1.0 / 0.1 teaching row");
  cmd->add_option("--hide", snap->hide, "table view: hide system,whitespace,padding (comma list)");
  cmd->add_flag("--presenter", snap->presenter, "presenter mode (large type), as View > Presenter mode");
  cmd->add_option("--batch", snap->inputs.batchFile, "a batch dump instead of a dataset");
  cmd->add_option("--stage", snap->stage,
                  "framework specs: batch (the dataset list shows the dataset's rows) or prepared (the "
                  "framework's prepared rows; --row counts them)")
      ->check(CLI::IsMember({"batch", "prepared"}));
  cmd->add_option("--model", snap->modelSpec, "model folder or builtin:tiny (real losses and attention)");
  cmd->add_option("--model-config", snap->modelConfig,
                  "a model's config.json (or folder): its layer layout without weights, for --layer");
  cmd->add_option("--layer", snap->layer,
                  "with --model or --model-config: the decoder layer shown (sliding layers show their window)");
  cmd->add_option("--window", snap->window, "without a model: draw a sliding window of N keys in the grid");
  addAttnImplementationOption(cmd, snap->attnImplementation);
  auto applyRows = addBatchInputs(cmd, snap->inputs); // --rows A:B: the batch shown
  return [snap, size, applyRows](CommandIO& io) {
    applyRows();
    if (!size->empty()) {
      auto x = size->find('x');
      if (x == std::string::npos) throw Error("--size: expected WxH, got \"" + *size + "\"");
      snap->width = std::stoi(size->substr(0, x));
      snap->height = std::stoi(size->substr(x + 1));
    }
    return runSnapshot(*snap, io);
  };
}

Runner declareTrainingTemplate(CLI::App* cmd) {
  auto a = std::make_shared<TrainingTemplateArgs>();
  cmd->add_option("--template", a->templateSpec, "built-in name, .jinja, tokenizer_config.json or model folder");
  cmd->add_option("--tokenizer", a->tokenizerSpec, "tokenizer spec (its special tokens and folder)");
  cmd->add_option("--out", a->out, "the .jinja to write (only after verification)")->required();
  return [a](CommandIO& io) { return runTrainingTemplate(*a, io); };
}

// The headless commands, in the order --help lists them.
const std::vector<CommandSpec>& commands() {
  static const std::vector<CommandSpec> table = {
      {"tokenize", "token ids, pieces and UTF-8 byte offsets of a text", declareTokenize},
      {"collate", "the batch a collator builds from dataset rows", declareCollate},
      {"render", "a conversation through a chat template, as apply_chat_template", declareRender},
      {"render-diff", "per assistant turn: the tokens trained on vs the tokens seen at inference", declareRenderDiff},
      {"lint", "name every masking bug of a dataset or batch dump", declareLint},
      {"loss", "the model's loss with the masks as given and fixed (LibTorch)", declareLoss},
      {"train-ab", "train twice, buggy and correct collator, and compare (LibTorch)", declareTrainAB},
      {"snapshot", "render one view of the app off screen to a PNG", declareSnapshot},
      {"patch-template", "a training template: the chat template with {% generation %} blocks",
       declareTrainingTemplate},
  };
  return table;
}

bool isCommand(const std::string& word) {
  for (const CommandSpec& c : commands())
    if (word == c.name) return true;
  return false;
}

// Files and options for the app (ui/shell/AppArguments.h). A bare first word that is neither a
// command nor an existing path is a typo, and an option the app does not take is refused: -1 opens
// the app, 2 is the exit status of a bad command line.
int checkAppArguments(int argc, char** argv) {
  const std::string first = argv[1];
  std::error_code ec;
  if (!(first.starts_with("-") || first.find('/') != std::string::npos || first.find('.') != std::string::npos ||
        std::filesystem::exists(first, ec))) {
    std::set<std::string> names;
    for (const CommandSpec& c : commands()) names.insert(c.name);
    std::cerr << "maskscope: unknown command \"" << first << "\" (commands:";
    for (const auto& n : names) std::cerr << " " << n;
    std::cerr << "; or give dataset, batch or model files to open the app)\n";
    return 2;
  }
  QStringList args;
  for (int i = 1; i < argc; ++i) args << QString::fromLocal8Bit(argv[i]);
  const AppArguments parsed = parseAppArguments(args);
  if (parsed.error.isEmpty()) return -1;
  std::cerr << "maskscope: error: " << parsed.error.toStdString() << "\n";
  return 2;
}

} // namespace

std::string headlessCommandList() {
  std::string list;
  for (const CommandSpec& c : commands()) {
    if (!list.empty()) list += ", ";
    list += c.name;
  }
  return list;
}

int runHeadless(int argc, char** argv) {
  if (argc < 2) return -1;
  const std::string first = argv[1];
  const bool isGlobalFlag = first == "--version" || first == "--help" || first == "-h";
  if (!isCommand(first) && !isGlobalFlag) return checkAppArguments(argc, argv);

  CLI::App app{"maskscope: see and debug the masks of LLM fine-tuning"};
  app.set_version_flag("--version", std::string("maskscope ") + MASKSCOPE_VERSION);
  app.require_subcommand(0, 1);
  app.footer("Without a command, maskscope opens the desktop app: `maskscope` on the built-in demo,\n"
             "`maskscope FILE...` on a dataset (.jsonl/.json), a batch dump (.json/.jsonl/.safetensors/.pt),\n"
             "a capture folder, a model folder or a framework config (.yml/.yaml). The app takes the\n"
             "tokenizer, template, collator, var and data options as the commands do. Every command takes\n"
             "--json and --help.\n"
             "Exit status: 0 success, 1 problems found, 2 unusable input.");
  bool json = false;
  std::vector<std::pair<CLI::App*, Runner>> declared;
  for (const CommandSpec& c : commands()) {
    CLI::App* cmd = app.add_subcommand(c.name, c.description);
    Runner run = c.declare(cmd);
    cmd->add_flag("--json", json, "machine output on stdout");
    declared.emplace_back(cmd, std::move(run));
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e, std::cout, std::cerr);
    return e.get_exit_code() == 0 ? 0 : (code == 0 ? 0 : 2);
  }
  CommandIO io{std::cout, std::cerr, json, isatty(STDOUT_FILENO) != 0};
  for (auto& [cmd, run] : declared)
    if (cmd->parsed()) return runCommand(io, [&] { return run(io); });
  std::cout << app.help();
  return 0;
}

} // namespace maskscope
