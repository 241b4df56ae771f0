// One framework run: spec, rows, the framework's dataset preparation and collator, and the
// conversion to maskscope's Batch; plus the context helpers every implementation uses.
#include "core/frameworks/FrameworkPipeline.h"
#include "core/collate/DatasetPipeline.h"
#include "core/collate/TemplateVariables.h"
#include "core/frameworks/FrameworkToBatch.h"
#include "core/frameworks/UnavailableChatTemplate.h"
#include "core/template/JinjaChatTemplate.h"
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

int64_t FrameworkContext::padTokenIdOrEos() const {
  if (auto pad = tokenId("pad_token_id", "pad")) return *pad;
  if (auto eos = tokenId(nullptr, "eos")) return *eos;
  throw Error("neither a pad nor an EOS token id is known: give \"pad_token_id\" in the spec or a --tokenizer "
              "that has one",
              {spec.source, -1, -1, -1, "pad_token_id"});
}

const Tokenizer& FrameworkContext::requireTokenizer(const char* why) const {
  if (!tokenizer)
    throw Error(std::string(why) + " needs --tokenizer (rows of text are tokenized as the framework does)");
  return *tokenizer;
}

std::optional<int64_t> FrameworkContext::vocabSize() const {
  return tokenizer ? std::optional<int64_t>(tokenizer->vocabSize()) : std::nullopt;
}

Batch FrameworkImpl::toBatch(const FrameworkBatch& batch, const std::vector<PreparedRow>& rows,
                             FrameworkContext& ctx) const {
  return convertFrameworkBatch(batch, conventions(), rows, ctx.facts);
}

namespace {

struct Loaded {
  std::shared_ptr<const Tokenizer> tokenizer;
  std::shared_ptr<const ChatTemplate> chatTemplate;
};

Loaded loadTokenizerAndTemplate(const FrameworkInputs& in, const FrameworkSpec& spec) {
  Loaded l;
  const std::string templateSpec = frameworkTemplateSpec(spec, in.templateSpec);
  if (in.tokenizerSpec.empty()) {
    if (!templateSpec.empty()) throw Error("--template needs --tokenizer (the template's text is tokenized)");
    return l;
  }
  l.tokenizer = loadTokenizer(in.tokenizerSpec);
  try {
    l.chatTemplate = loadChatTemplate(templateSpec, in.tokenizerSpec);
  } catch (const Error& e) {
    if (!templateSpec.empty()) throw; // an explicit --template must load
    // the tokenizer has no template: only an error for the frameworks that render through it
    l.chatTemplate = std::make_shared<UnavailableChatTemplate>(e);
  }
  return l;
}

} // namespace

std::unique_ptr<PreparedFramework> prepareFrameworkInputs(const FrameworkInputs& in, FrameworkRun& run) {
  run.spec = parseFrameworkSpec(in.collatorSpec);
  const std::vector<InputRow> rows = readFrameworkRows(in.dataSpec, in.rowBegin, in.rowEnd, &run.skipped);
  const Loaded l = loadTokenizerAndTemplate(in, run.spec);
  run.tokenizer = l.tokenizer;
  RenderOptions render = frameworkRenderOptions(in.vars, l.chatTemplate.get(), l.tokenizer.get());
  render.minPixels = in.minPixels;
  render.maxPixels = in.maxPixels;
  auto framework = std::make_unique<PreparedFramework>(run.spec, l.tokenizer, l.chatTemplate, render, in.lenient);
  framework->prepare(rows);
  return framework;
}

std::shared_ptr<const ChatTemplate> templateJudged(const FrameworkFacts& facts,
                                                   std::shared_ptr<const ChatTemplate> tokenizerOwn) {
  if (!facts.nativeTemplate.empty()) return nullptr;
  if (facts.chatTemplateText.empty()) return tokenizerOwn;
  std::map<std::string, std::string> defaults;
  if (tokenizerOwn) defaults = tokenizerOwn->defaultVariables();
  return std::make_shared<JinjaChatTemplate>(facts.chatTemplateOrigin, facts.chatTemplateText, std::move(defaults));
}

std::string frameworkTemplateSpec(const FrameworkSpec& spec, const std::string& templateSpec) {
  auto it = spec.options.find("chat_template_path");
  if (it == spec.options.end() || !it->is_string()) return templateSpec;
  const std::string path = it->get<std::string>();
  if (!templateSpec.empty() && templateSpec != path)
    throw Error("--template " + templateSpec + " and the spec's chat_template_path " + path + " differ: give one",
                {spec.source, -1, -1, -1, "chat_template_path"});
  return path;
}

FrameworkRun prepareFramework(const FrameworkInputs& in) {
  FrameworkRun run;
  const std::unique_ptr<PreparedFramework> framework = prepareFrameworkInputs(in, run);
  run.prepared = framework->rows();
  run.facts = std::make_shared<FrameworkFacts>(framework->facts());
  return run;
}

FrameworkRun runFramework(const FrameworkInputs& in) {
  FrameworkRun run;
  const std::unique_ptr<PreparedFramework> framework = prepareFrameworkInputs(in, run);
  if (framework->rows().empty())
    throw Error("no rows left after " + run.spec.framework + "'s dataset preparation (" +
                    std::to_string(framework->facts().dropped.size()) + " dropped)",
                {in.dataSpec});
  FrameworkRun collated = framework->collate(0, framework->rows().size());
  collated.skipped = std::move(run.skipped);
  return collated;
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
