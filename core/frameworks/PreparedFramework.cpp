// A framework set up once and run on rows: preparation of every row, then the collator on any
// range of the prepared rows (one data-loader batch), each collation with its own copy of the facts.
#include "core/frameworks/PreparedFramework.h"
#include "core/util/Error.h"

#include <algorithm>

namespace maskscope {

RenderOptions frameworkRenderOptions(const std::vector<std::pair<std::string, std::string>>& vars,
                                     const ChatTemplate* t, const Tokenizer* tok) {
  RenderOptions ro;
  for (const auto& [k, v] : vars) ro.variables[k] = v;
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

PreparedFramework::PreparedFramework(FrameworkSpec spec, std::shared_ptr<const Tokenizer> tokenizer,
                                     std::shared_ptr<const ChatTemplate> chatTemplate, RenderOptions render,
                                     bool lenient)
    : spec_(std::move(spec)), tokenizer_(std::move(tokenizer)), template_(std::move(chatTemplate)),
      render_(std::move(render)), lenient_(lenient) {
  if (!spec_.collatorInfo || !spec_.collatorInfo->make)
    throw Error("internal: " + spec_.describe() + " has no implementation in the catalogue");
  impl_ = spec_.collatorInfo->make(spec_);
  facts_ = std::make_shared<FrameworkFacts>();
}

void PreparedFramework::prepare(const std::vector<InputRow>& rows) {
  auto f = std::make_shared<FrameworkFacts>();
  f->framework = spec_.framework;
  f->version = spec_.version;
  f->collator = spec_.collator;
  f->description = spec_.describe();
  f->source = spec_.source;
  f->rowsIn = long(rows.size());
  FrameworkContext ctx{spec_, tokenizer_, template_, render_, *f, lenient_};
  std::vector<PreparedRow> prepared = impl_->prepare(rows, ctx);
  f->rowsPrepared = long(prepared.size());
  prepared_ = std::move(prepared);
  facts_ = std::move(f);
  resolved_ = std::move(ctx.resolved);
}

FrameworkRun PreparedFramework::collate(size_t begin, size_t end) const {
  end = std::min(end, prepared_.size());
  if (begin >= end) throw Error("no prepared rows to collate");
  FrameworkRun run;
  run.spec = spec_;
  run.tokenizer = tokenizer_;
  run.facts = std::make_shared<FrameworkFacts>(*facts_); // the collator's notes join the preparation's
  run.prepared.assign(prepared_.begin() + std::ptrdiff_t(begin), prepared_.begin() + std::ptrdiff_t(end));
  FrameworkContext ctx{spec_, tokenizer_, template_, render_, *run.facts, lenient_};
  ctx.resolved = resolved_;
  run.batch = impl_->collate(run.prepared, ctx);
  run.view = impl_->toBatch(run.batch, run.prepared, ctx);
  run.view.framework = run.facts;
  return run;
}

} // namespace maskscope
