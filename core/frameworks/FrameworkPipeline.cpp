// One framework run: spec, rows, the framework's dataset preparation and collator, and the
// conversion to maskscope's Batch; plus the context helpers every implementation uses.
#include "core/frameworks/FrameworkPipeline.h"
#include "core/collate/DatasetPipeline.h"
#include "core/collate/TemplateVariables.h"
#include "core/frameworks/FrameworkToBatch.h"
#include "core/frameworks/UnavailableChatTemplate.h"
#include "core/util/Error.h"

namespace maskscope {

std::optional<int64_t> FrameworkContext::tokenId(const char* specKey, const char* which) const {
  if (specKey && spec.options.contains(specKey) && spec.options[specKey].is_number_integer())
    return spec.options[specKey].get<int64_t>();
  if (!tokenizer) return std::nullopt;
  const SpecialTokenIds sp = specialTokenIds(*tokenizer, render);
  const std::string w = which;
  const std::optional<int32_t> id = w == "pad" ? sp.pad : w == "eos" ? sp.eos : w == "bos" ? sp.bos : sp.unk;
  return id ? std::optional<int64_t>(*id) : std::nullopt;
}

int64_t FrameworkContext::requireTokenId(const char* specKey, const char* which) const {
  if (auto id = tokenId(specKey, which)) return *id;
  throw Error(std::string("the ") + which + " token id is unknown: give \"" + (specKey ? specKey : "?") +
                  "\" in the spec or a --tokenizer that has one",
              {spec.source, -1, -1, -1, specKey ? specKey : ""});
}

const Tokenizer& FrameworkContext::requireTokenizer(const char* why) const {
  if (!tokenizer)
    throw Error(std::string(why) + " needs --tokenizer (rows of text are tokenized as the framework does)");
  return *tokenizer;
}

Batch FrameworkImpl::toBatch(const FrameworkBatch& batch, const std::vector<PreparedRow>& rows,
                             FrameworkContext& ctx) const {
  return convertFrameworkBatch(batch, conventions(), rows, ctx.facts);
}

namespace {

RenderOptions renderOptionsFor(const FrameworkInputs& in, const ChatTemplate* t, const Tokenizer* tok) {
  RenderOptions ro;
  for (const auto& [k, v] : in.vars) ro.variables[k] = v;
  if (t)
    for (const auto& [k, v] : t->defaultVariables()) ro.variables.try_emplace(k, v);
  if (tok) {
    const SpecialTokenIds sp = tok->specialTokens();
    for (const auto& [k, v] : {std::pair<const char*, std::string>{"bos_token", sp.bosText},
                               {"eos_token", sp.eosText},
                               {"pad_token", sp.padText},
                               {"unk_token", sp.unkText}})
      if (!v.empty()) ro.variables.try_emplace(k, v);
  }
  return ro;
}

struct Loaded {
  std::shared_ptr<const Tokenizer> tokenizer;
  std::shared_ptr<const ChatTemplate> chatTemplate;
};

Loaded loadTokenizerAndTemplate(const FrameworkInputs& in) {
  Loaded l;
  if (in.tokenizerSpec.empty()) {
    if (!in.templateSpec.empty()) throw Error("--template needs --tokenizer (the template's text is tokenized)");
    return l;
  }
  l.tokenizer = loadTokenizer(in.tokenizerSpec);
  try {
    l.chatTemplate = loadChatTemplate(in.templateSpec, in.tokenizerSpec);
  } catch (const Error& e) {
    if (!in.templateSpec.empty()) throw; // an explicit --template must load
    // the tokenizer has no template: only an error for the frameworks that render through it
    l.chatTemplate = std::make_shared<UnavailableChatTemplate>(e);
  }
  return l;
}

// A spec's chat_template_path (TRL's SFTConfig) is the template, as --template would be; both
// given and different is refused rather than one silently winning.
FrameworkInputs withSpecTemplate(FrameworkInputs in, const FrameworkSpec& spec) {
  auto it = spec.options.find("chat_template_path");
  if (it == spec.options.end() || !it->is_string()) return in;
  const std::string path = it->get<std::string>();
  if (!in.templateSpec.empty() && in.templateSpec != path)
    throw Error("--template " + in.templateSpec + " and the spec's chat_template_path " + path + " differ: give one",
                {spec.source, -1, -1, -1, "chat_template_path"});
  in.templateSpec = path;
  return in;
}

FrameworkRun start(const FrameworkInputs& in, std::unique_ptr<FrameworkImpl>& impl, std::vector<InputRow>& rows) {
  FrameworkRun run;
  run.spec = parseFrameworkSpec(in.collatorSpec);
  impl = run.spec.definition->make(run.spec);
  run.facts = std::make_shared<FrameworkFacts>();
  FrameworkFacts& f = *run.facts;
  f.framework = run.spec.framework;
  f.version = run.spec.version;
  f.collator = run.spec.collator;
  f.description = run.spec.describe();
  f.source = run.spec.source;
  rows = readFrameworkRows(in.dataSpec, in.rowBegin, in.rowEnd, &run.skipped);
  f.rowsIn = long(rows.size());
  return run;
}

} // namespace

FrameworkRun prepareFramework(const FrameworkInputs& in) {
  std::unique_ptr<FrameworkImpl> impl;
  std::vector<InputRow> rows;
  FrameworkRun run = start(in, impl, rows);
  const Loaded l = loadTokenizerAndTemplate(withSpecTemplate(in, run.spec));
  run.tokenizer = l.tokenizer;
  FrameworkContext ctx{run.spec,       l.tokenizer,
                       l.chatTemplate, renderOptionsFor(in, l.chatTemplate.get(), l.tokenizer.get()),
                       *run.facts,     in.lenient};
  run.prepared = impl->prepare(rows, ctx);
  run.facts->rowsPrepared = long(run.prepared.size());
  return run;
}

FrameworkRun runFramework(const FrameworkInputs& in) {
  std::unique_ptr<FrameworkImpl> impl;
  std::vector<InputRow> rows;
  FrameworkRun run = start(in, impl, rows);
  const Loaded l = loadTokenizerAndTemplate(withSpecTemplate(in, run.spec));
  run.tokenizer = l.tokenizer;
  FrameworkContext ctx{run.spec,       l.tokenizer,
                       l.chatTemplate, renderOptionsFor(in, l.chatTemplate.get(), l.tokenizer.get()),
                       *run.facts,     in.lenient};
  run.prepared = impl->prepare(rows, ctx);
  run.facts->rowsPrepared = long(run.prepared.size());
  if (run.prepared.empty())
    throw Error("no rows left after " + run.spec.framework + "'s dataset preparation (" +
                    std::to_string(run.facts->dropped.size()) + " dropped)",
                {in.dataSpec});
  run.batch = impl->collate(run.prepared, ctx);
  run.view = impl->toBatch(run.batch, run.prepared, ctx);
  run.view.framework = run.facts;
  return run;
}

std::string describeFrameworkRun(const FrameworkRun& run) {
  const FrameworkFacts& f = *run.facts;
  std::string out = "framework: " + f.description + "\n";
  if (run.spec.versionInfo) out += "  as read from: " + run.spec.versionInfo->readFrom + "\n";
  if (!run.spec.ignored.empty()) {
    std::string names;
    for (const auto& n : run.spec.ignored) names += (names.empty() ? "" : ", ") + n;
    out += "  ignored (no effect on the batch): " + names + "\n";
  }
  out += "  rows: " + std::to_string(f.rowsIn) + " read, " + std::to_string(f.rowsPrepared) + " after preparation";
  if (!f.dropped.empty()) out += ", " + std::to_string(f.dropped.size()) + " dropped";
  out += "\n";
  return out;
}

} // namespace maskscope
