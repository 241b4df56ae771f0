// Building a command's batch from a dump or from a dataset through the pipeline.
#include "core/commands/BatchInputs.h"
#include "core/batchio/BatchLoader.h"
#include "core/collate/DatasetPipeline.h"
#include "core/collate/TemplateVariables.h"
#include "core/frameworks/FrameworkPipeline.h"
#include "core/frameworks/FrameworkSpec.h"
#include "core/lint/Lint.h"
#include "core/lint/TokenizerFit.h"
#include "core/tokenizer/Tokenizer.h"
#include "core/util/Error.h"

namespace maskscope {

Batch buildBatch(const BatchInputs& in, std::vector<RowError>* rowErrors,
                 std::shared_ptr<const Tokenizer>* tokenizerOut, std::vector<std::string>* notes) {
  if (!in.batchFile.empty()) {
    Batch dump = loadBatchDump(in.batchFile);
    if (in.tokenizerSpec.empty()) return dump;
    // With its tokenizer (and template) a dump is read as lint reads it (core/lint/Lint.h, readDump):
    // the tokenizer's special-token ids where the dump has none, roles and naive-packing boundaries.
    LintContext ctx;
    ctx.tokenizer = loadTokenizer(in.tokenizerSpec);
    if (tokenizerOut) *tokenizerOut = ctx.tokenizer;
    try {
      ctx.chatTemplate = loadChatTemplate(in.templateSpec, in.tokenizerSpec);
    } catch (const Error&) {
      if (!in.templateSpec.empty()) throw; // the tokenizer's own template is optional here, a given one is not
    }
    RenderOptions given;
    for (const auto& [k, v] : in.vars) given.variables[k] = v;
    ctx.render = templateVariables(given, ctx.chatTemplate.get(), ctx.tokenizer.get());
    // The same verdict the app gives when it opens the dump: a tokenizer whose vocabulary cannot hold
    // the ids (or whose specials differ) is named, with the cached ones that fit.
    const TokenizerFit fit = tokenizerFit(dump, *ctx.tokenizer, ctx.render);
    if (!fit.fits && notes)
      notes->push_back(tokenizerFitNote(in.batchFile, in.tokenizerSpec, &fit,
                                        rankTokenizers(dump, defaultTokenizerCandidates(), given)));
    readDump(dump, ctx);
    return dump;
  }
  if (in.dataSpec.empty()) throw Error("give --batch FILE or --data FILE");
  if (isFrameworkSpec(in.collatorSpec)) {
    // The batch the user's framework builds (core/frameworks), judged as maskscope's Batch.
    FrameworkRun run = runFramework(frameworkInputsOf(in, in.lenientFramework));
    if (rowErrors) *rowErrors = run.skipped;
    if (tokenizerOut) *tokenizerOut = run.tokenizer;
    return std::move(run.view);
  }
  PipelineSpec ps;
  ps.tokenizerSpec = in.tokenizerSpec.empty() ? "builtin:demo" : in.tokenizerSpec;
  ps.templateSpec = in.templateSpec;
  ps.collatorSpec = in.collatorSpec;
  for (const auto& [k, v] : in.vars) ps.render.variables[k] = v;
  ps.render.minPixels = in.minPixels;
  ps.render.maxPixels = in.maxPixels;
  DatasetPipeline pipeline(ps);
  if (tokenizerOut) *tokenizerOut = pipeline.encoder().tokenizerPtr();
  DatasetReader reader(in.dataSpec);
  std::vector<TokenizedConversation> rows;
  Conversation c;
  while (reader.next(c)) {
    if (c.rowIndex < in.rowBegin) continue;
    if (in.rowEnd >= 0 && c.rowIndex >= in.rowEnd) break;
    rows.push_back(pipeline.encode(c));
  }
  if (rowErrors) *rowErrors = reader.errors();
  if (rows.empty()) {
    // Name why rows were skipped: with no rows the command stops here, before listing them.
    const std::string why = reader.errors().empty() ? "" : "; " + reader.errors().front().toString();
    throw Error("no rows selected (the dataset has " + std::to_string(reader.rowsRead()) + " readable rows" + why + ")",
                {in.dataSpec});
  }
  return pipeline.collate(rows);
}

FrameworkInputs frameworkInputsOf(const BatchInputs& in, bool lenient) {
  FrameworkInputs fi;
  fi.dataSpec = in.dataSpec;
  fi.collatorSpec = in.collatorSpec;
  fi.tokenizerSpec = in.tokenizerSpec;
  fi.templateSpec = in.templateSpec;
  fi.rowBegin = in.rowBegin;
  fi.rowEnd = in.rowEnd;
  fi.vars = in.vars;
  fi.minPixels = in.minPixels;
  fi.maxPixels = in.maxPixels;
  fi.lenient = lenient;
  return fi;
}

} // namespace maskscope
