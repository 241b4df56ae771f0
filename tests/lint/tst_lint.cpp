// Lint tests: every rule fires on a planted bug and stays quiet on the near miss (hand-built
// IntGrid batches and demo-pipeline batches), presets over builtin:demo, malformed rows, role
// recovery from dumps, the command's JSON shape and exit codes, shards and thread determinism.
#include "core/batchio/BatchLoader.h"
#include "core/collate/CollatorSpec.h"
#include "core/collate/DatasetPipeline.h"
#include "core/collate/TemplateVariables.h"
#include "core/commands/LintCommand.h"
#include "core/forward/LossPlan.h"
#include "core/frameworks/FrameworkPipeline.h"
#include "core/lint/Lint.h"
#include "core/lint/TemplateChecks.h"
#include "core/mask/PackedSegments.h"
#include "core/mask/PackingSeparators.h"
#include "core/mask/PaddingDetection.h"
#include "core/mask/RowFacts.h"
#include "core/util/Error.h"
#include "core/util/FileReading.h"
#include "core/util/JsonParse.h"

#include <QDir>
#include <QTest>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

using namespace maskscope;

namespace {

const std::string kData = MASKSCOPE_TEST_DATA_DIR "/lint/";
const std::string kPreference = MASKSCOPE_TEST_DATA_DIR "/preference/";

// Builds a batch from rows of ids; labels/mask/positions given per row (empty: derived).
struct RowSpec {
  std::vector<int64_t> ids, labels, mask, positions;
};

Batch makeBatch(const std::vector<RowSpec>& rows, std::optional<int64_t> pad = 0, std::optional<int64_t> eos = 3,
                std::optional<int64_t> bos = 2) {
  Batch b;
  const int64_t B = int64_t(rows.size()), T = int64_t(rows.front().ids.size());
  b.inputIds = IntGrid(B, T);
  b.labels = IntGrid(B, T, kIgnoreIndex);
  b.attentionMask = IntGrid(B, T, 1);
  bool anyPos = false;
  for (const auto& r : rows) anyPos = anyPos || !r.positions.empty();
  if (anyPos) b.positionIds = IntGrid(B, T);
  for (int64_t r = 0; r < B; ++r) {
    const RowSpec& s = rows[size_t(r)];
    for (int64_t t = 0; t < T; ++t) {
      b.inputIds.at(r, t) = s.ids[size_t(t)];
      if (!s.labels.empty()) b.labels.at(r, t) = s.labels[size_t(t)];
      if (!s.mask.empty()) b.attentionMask.at(r, t) = s.mask[size_t(t)];
      if (anyPos) b.positionIds.at(r, t) = s.positions.empty() ? t : s.positions[size_t(t)];
    }
  }
  b.padTokenId = pad;
  b.eosTokenId = eos;
  b.bosTokenId = bos;
  return b;
}

constexpr int64_t X = kIgnoreIndex;

bool fires(const LintReport& r, const std::string& rule, Severity atLeast = Severity::Info) {
  for (const Finding& f : r.findings)
    if (f.rule == rule && f.severity >= atLeast) return true;
  return false;
}

std::string describe(const LintReport& r) {
  std::string s;
  for (const Finding& f : r.findings)
    s += "\n  " + std::string(severityName(f.severity)) + " " + f.rule + ": " + f.message;
  return s.empty() ? "\n  (no findings)" : s;
}

using BatchCase = std::function<LintReport()>;
std::vector<BatchCase> gCases; // filled by rules_data(), indexed by its caseIndex column

LintReport lintIds(const Batch& b, bool generation = false, std::optional<int32_t> vocab = std::nullopt) {
  LintContext ctx;
  ctx.generation = generation;
  (void)vocab;
  return lintBatch(b, ctx);
}

// A demo-pipeline batch for the conversations of a dataset file.
Batch demoBatch(const std::string& data, const std::string& collator, long limit = -1) {
  PipelineSpec ps;
  ps.collatorSpec = collator;
  DatasetPipeline p(ps);
  return p.collateConversations(readDataset(data, nullptr, limit));
}

// A framework spec's batch (core/frameworks) linted as `lint ROWS --collator SPEC` lints it: what
// the framework run recorded (Batch::framework) feeds the framework-* rules.
LintReport lintFramework(const std::string& rows, const std::string& spec, const std::string& tokenizer = {},
                         const std::string& templateSpec = {}) {
  FrameworkInputs in;
  in.dataSpec = kData + "frameworks/" + rows;
  in.collatorSpec = kData + "frameworks/" + spec;
  in.tokenizerSpec = tokenizer;
  in.templateSpec = templateSpec;
  in.lenient = true;
  const FrameworkRun run = runFramework(in);
  LintContext ctx;
  ctx.tokenizer = run.tokenizer;
  return lintBatch(run.view, ctx);
}

LintContext demoContext(const std::string& collator = {}) {
  LintContext ctx;
  ctx.tokenizer = loadTokenizer("builtin:demo");
  ctx.chatTemplate = loadChatTemplate("chatml", "builtin:demo");
  for (const auto& [k, v] : ctx.chatTemplate->defaultVariables()) ctx.render.variables.try_emplace(k, v);
  if (!collator.empty()) ctx.collator = parseCollatorSpec(collator);
  return ctx;
}

// The batch a framework spec builds from the demo conversations (the demo tokenizer, lenient as lint runs it).
Batch frameworkBatch(const std::string& spec, long rows = 9) {
  FrameworkInputs in;
  in.dataSpec = "builtin:demo";
  in.collatorSpec = spec;
  in.tokenizerSpec = "builtin:demo";
  in.rowEnd = rows;
  in.lenient = true;
  return runFramework(in).view;
}

Batch stripped(Batch b) {
  b.meta.clear();
  b.segments.clear();
  b.sourceRows.clear();
  return b;
}

} // namespace

class TestLint : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void rules_data();
  void rules();
  void everyRuleHasFiresAndQuietCases();
  void presets_data();
  void presets();
  void malformedRows();
  void jsonListItems();
  void explanations();
  void docsInSync();
  void commandJsonAndExitCodes();
  void padIdAndFailOn();
  void shardsAndThreads();
  void rowFactsCounts();
  void naivePackingBoundaries_data();
  void naivePackingBoundaries();
  void paddingFreeCuSeqLens();
  void lintAndLossCountsAgree_data();
  void lintAndLossCountsAgree();
  void unclosedThinkPointsAtTheTag_data();
  void unclosedThinkPointsAtTheTag();
};

namespace {

// Every rule of the registry has at least one case that fires and one that stays quiet.
struct RuleCase {
  const char* name;
  const char* rule;
  bool fire;
  BatchCase run;
};

std::vector<RuleCase> ruleCases() {
  std::vector<RuleCase> cases;
  auto add = [&](const char* name, const char* rule, bool fire, BatchCase c) {
    cases.push_back({name, rule, fire, std::move(c)});
  };
  // Row: BOS 10 11 12 EOS pad pad (ids 2 = BOS, 3 = EOS, 0 = pad).
  add("shape-mismatch fires", "shape-mismatch", true, [] {
    Batch b = makeBatch({{{2, 10, 11, 3}, {2, 10, 11, 3}, {}, {}}});
    b.labels = IntGrid(1, 3, kIgnoreIndex);
    return lintIds(b);
  });
  add("shape-mismatch quiet", "shape-mismatch", false, [] {
    return lintIds(makeBatch({{{2, 10, 11, 3}, {X, 10, 11, 3}, {}, {}}}));
  });
  add("pad-graded fires", "pad-graded", true, [] {
    return lintIds(makeBatch({{{2, 10, 11, 3, 0, 0}, {2, 10, 11, 3, 0, 0}, {1, 1, 1, 1, 0, 0}, {}}}));
  });
  add("pad-graded quiet", "pad-graded", false, [] {
    return lintIds(makeBatch({{{2, 10, 11, 3, 0, 0}, {X, 10, 11, 3, X, X}, {1, 1, 1, 1, 0, 0}, {}}}));
  });
  add("pad-graded quiet pad==eos closing graded", "pad-graded", false, [] {
    return lintIds(makeBatch({{{2, 10, 11, 3, 3, 3}, {X, 10, 11, 3, X, X}, {1, 1, 1, 1, 0, 0}, {}}}, 3, 3));
  });
  add("stop-token quiet pad==eos closing graded", "stop-token-not-graded", false, [] {
    return lintIds(makeBatch({{{2, 10, 11, 3, 3, 3}, {X, 10, 11, 3, X, X}, {1, 1, 1, 1, 0, 0}, {}}}, 3, 3));
  });
  add("stop-token fires pad==eos masked by id", "stop-token-not-graded", true, [] {
    return lintIds(makeBatch({{{2, 10, 11, 3, 3, 3}, {2, 10, 11, X, X, X}, {1, 1, 1, 1, 0, 0}, {}}}, 3, 3));
  });
  add("pad-attended fires all-ones", "pad-attended", true, [] {
    return lintIds(makeBatch({{{2, 10, 11, 3, 0, 0}, {X, 10, 11, 3, X, X}, {}, {}}}));
  });
  add("pad-attended quiet", "pad-attended", false, [] {
    return lintIds(makeBatch({{{2, 10, 11, 3, 0, 0}, {X, 10, 11, 3, X, X}, {1, 1, 1, 1, 0, 0}, {}}}));
  });
  add("pad-attended quiet pad==eos all-ones one eos", "pad-attended", false, [] {
    return lintIds(makeBatch({{{2, 10, 11, 3}, {X, 10, 11, 3}, {}, {}}}, 3, 3));
  });
  add("label-out-of-range fires", "label-out-of-range", true, [] {
    return lintIds(makeBatch({{{2, 10, 11, 3}, {X, 10, 999, -1}, {}, {}}}));
  });
  add("label-out-of-range quiet", "label-out-of-range", false, [] {
    return lintIds(makeBatch({{{2, 10, 11, 3}, {X, 10, 11, 3}, {}, {}}}));
  });
  add("labels-preshifted fires", "labels-preshifted", true, [] {
    return lintIds(makeBatch({{{2, 10, 11, 12, 13, 14, 3}, {10, 11, 12, 13, 14, 3, X}, {}, {}}}));
  });
  add("labels-preshifted quiet repeated ids", "labels-preshifted", false, [] {
    return lintIds(makeBatch({{{2, 10, 10, 10, 10, 10, 3}, {X, 10, 10, 10, 10, 10, 3}, {}, {}}}));
  });
  add("label-not-input-id fires", "label-not-input-id", true, [] {
    return lintIds(makeBatch({{{2, 10, 11, 12, 3}, {X, 10, 17, 12, 3}, {}, {}}}));
  });
  add("packing-cross-attention fires (reset positions, all-ones)", "packing-cross-attention", true, [] {
    return lintIds(
        makeBatch({{{2, 10, 3, 2, 11, 3, 0}, {X, 10, 3, X, 11, 3, X}, {1, 1, 1, 1, 1, 1, 0}, {0, 1, 2, 0, 1, 2, 3}},
                   {{2, 12, 3, 0, 0, 0, 0}, {X, 12, 3, X, X, X, X}, {1, 1, 1, 0, 0, 0, 0}, {0, 1, 2, 3, 4, 5, 6}}}));
  });
  add("packing-cross-attention quiet (segment ids)", "packing-cross-attention", false, [] {
    return lintIds(
        makeBatch({{{2, 10, 3, 2, 11, 3, 0}, {X, 10, 3, X, 11, 3, X}, {1, 1, 1, 2, 2, 2, 0}, {0, 1, 2, 0, 1, 2, 3}}}));
  });
  add("packing-cross-attention padding-free is a warning", "packing-cross-attention", false, [] {
    LintReport r = lintIds(makeBatch({{{2, 10, 3, 2, 11, 3}, {X, 10, 3, X, 11, 3}, {}, {0, 1, 2, 0, 1, 2}}}));
    if (!fires(r, "packing-cross-attention", Severity::Warning))
      r.findings.clear(); // must still warn
    else
      for (auto& f : r.findings)
        if (f.rule == "packing-cross-attention" && f.severity == Severity::Warning) f.rule = "ok";
    return r;
  });
  add("position-ids-not-reset fires", "position-ids-not-reset", true, [] {
    return lintIds(
        makeBatch({{{2, 10, 3, 2, 11, 3, 0}, {X, 10, 3, X, 11, 3, X}, {1, 1, 1, 2, 2, 2, 0}, {0, 1, 2, 3, 4, 5, 6}}}));
  });
  add("position-ids-not-reset quiet", "position-ids-not-reset", false, [] {
    return lintIds(
        makeBatch({{{2, 10, 3, 2, 11, 3, 0}, {X, 10, 3, X, 11, 3, X}, {1, 1, 1, 2, 2, 2, 0}, {0, 1, 2, 0, 1, 2, 3}}}));
  });
  // Naive packing (tools/lint-fixtures/make_packing_dumps.py, real Qwen3 ids): examples joined by
  // <|im_end|> or by the pad <|endoftext|>, one all-ones block, positions 0..T-1.
  add("packing-cross-attention fires (naive packing, EOS joins)", "packing-cross-attention", true,
      [] { return lintIds(loadBatchDump(kData + "naive-packing-eos.json")); });
  add("packing-cross-attention fires (naive packing, pad joins)", "packing-cross-attention", true,
      [] { return lintIds(loadBatchDump(kData + "naive-packing-pad.json")); });
  add("packing-cross-attention quiet (one conversation per row)", "packing-cross-attention", false,
      [] { return lintIds(loadBatchDump(kData + "unpacked-chatml.json")); });
  // Conversations back to back exactly as ChatML joins turns (real Qwen3 ids, tests/data/lint/joins): the
  // boundaries cannot be told; a warning only where the row shows packing (here the collator given).
  auto joins = [](const char* file, const char* collator) {
    return [file, collator] {
      const std::string qwen3 = std::string(MASKSCOPE_TOKENIZER_CACHE) + "/qwen3";
      LintContext ctx;
      ctx.tokenizer = loadTokenizer(qwen3);
      ctx.chatTemplate = loadChatTemplate("", qwen3);
      ctx.render = templateVariables({}, ctx.chatTemplate.get(), ctx.tokenizer.get());
      if (*collator) ctx.collator = parseCollatorSpec(collator);
      return lintBatch(loadBatchDump(kData + "joins/" + file), ctx);
    };
  };
  add("packing-boundaries-ambiguous fires (ChatML back to back, a packing collator)", "packing-boundaries-ambiguous",
      true, joins("chatml-direct.json", "buggy-no-position-reset"));
  add("packing-boundaries-ambiguous quiet (ChatML back to back, no sign of packing)", "packing-boundaries-ambiguous",
      false, joins("chatml-direct.json", ""));
  add("packing-boundaries-ambiguous quiet (one multi-turn chat)", "packing-boundaries-ambiguous", false,
      joins("chatml-multi-turn.json", ""));
  add("position-ids-not-reset fires (naive packing)", "position-ids-not-reset", true,
      [] { return lintIds(loadBatchDump(kData + "naive-packing-eos.json")); });
  add("position-ids-not-reset quiet (one conversation per row)", "position-ids-not-reset", false,
      [] { return lintIds(loadBatchDump(kData + "unpacked-chatml.json")); });
  add("packing-cross-attention quiet (EOS then BOS with left pads only)", "packing-cross-attention", false, [] {
    return lintIds(makeBatch({{{3, 3, 2, 10, 11, 3}, {X, X, X, 10, 11, 3}, {0, 0, 1, 1, 1, 1}, {}}}, 3, 3, 2));
  });
  add("packing-cross-attention fires (EOS then BOS, no positions)", "packing-cross-attention", true, [] {
    return lintIds(makeBatch({{{2, 10, 3, 2, 11, 3, 0}, {X, 10, 3, X, 11, 3, X}, {1, 1, 1, 1, 1, 1, 0}, {}}}));
  });
  // The same two packed examples under each attention implementation (tests/data/mask/attention/, whose
  // expected.json holds the masks): the rule fires when the one judged leaks and another would not.
  const std::string attention = MASKSCOPE_TEST_DATA_DIR "/mask/attention/";
  auto lintUnder = [attention](const char* dump, const char* impl) {
    LintContext ctx;
    ctx.attnImplementation = impl;
    return lintBatch(loadBatchDump(attention + dump), ctx);
  };
  add("packing-depends-on-attention fires (all-ones mask, sdpa assumed)", "packing-depends-on-attention", true,
      [lintUnder] { return lintUnder("all_ones_mask.json", ""); });
  add("packing-depends-on-attention fires (all-ones mask, eager)", "packing-depends-on-attention", true,
      [lintUnder] { return lintUnder("all_ones_mask.json", "eager"); });
  add("packing-depends-on-attention quiet (all-ones mask, flash_attention_2)", "packing-depends-on-attention", false,
      [lintUnder] { return lintUnder("all_ones_mask.json", "flash_attention_2"); });
  add("packing-depends-on-attention quiet (padding-free, sdpa splits by position_ids)", "packing-depends-on-attention",
      false, [lintUnder] { return lintUnder("padding_free.json", "sdpa"); });
  add("packing-depends-on-attention fires (cu_seq_lens, sdpa)", "packing-depends-on-attention", true,
      [lintUnder] { return lintUnder("cu_seq_lens.json", "sdpa"); });
  add("packing-depends-on-attention quiet (cu_seq_lens, flash_attention_2 assumed)", "packing-depends-on-attention",
      false, [lintUnder] { return lintUnder("cu_seq_lens.json", ""); });
  add("packing-depends-on-attention fires (two padding-free rows, flash_attention_2 assumed)",
      "packing-depends-on-attention", true, [lintUnder] { return lintUnder("two_rows_padding_free.json", ""); });
  add("packing-depends-on-attention quiet (4-D mask, sdpa)", "packing-depends-on-attention", false,
      [lintUnder] { return lintUnder("mask_4d.json", "sdpa"); });
  // packing-cross-attention agrees with the implementation judged: a leak only some implementations
  // have is packing-depends-on-attention's alone; one the judged implementation avoids is a warning.
  add("packing-cross-attention quiet (all-ones mask, sdpa: packing-depends-on-attention's)", "packing-cross-attention",
      false, [lintUnder] { return lintUnder("all_ones_mask.json", "sdpa"); });
  add("packing-cross-attention only warns (all-ones mask, flash_attention_2 keeps apart)", "packing-cross-attention",
      false, [lintUnder] {
        LintReport r = lintUnder("all_ones_mask.json", "flash_attention_2");
        bool warned = false; // the warning is renamed; an error stays and fails the row, as does silence
        for (auto& f : r.findings)
          if (f.rule == "packing-cross-attention" && f.severity == Severity::Warning) f.rule = "ok", warned = true;
        if (!warned) r.findings.push_back({.rule = "packing-cross-attention", .severity = Severity::Error});
        return r;
      });
  // Padding-free rows with cu_seq_lens_q/k (DataCollatorWithFlattening): boundaries from the dump.
  add("position-ids-not-reset fires (padding-free, cu_seq_lens, positions run on)", "position-ids-not-reset", true,
      [] { return lintIds(loadBatchDump(kData + "padding-free-positions-run-on.json")); });
  add("position-ids-not-reset quiet (padding-free, cu_seq_lens, positions restart)", "position-ids-not-reset", false,
      [] { return lintIds(loadBatchDump(kData + "padding-free-cu-seq-lens.json")); });
  add("left-pad-positions fires", "left-pad-positions", true, [] {
    return lintIds(makeBatch({{{0, 0, 2, 10, 3}, {X, X, X, 10, 3}, {0, 0, 1, 1, 1}, {0, 1, 2, 3, 4}}}));
  });
  add("left-pad-positions quiet (cumsum positions)", "left-pad-positions", false, [] {
    return lintIds(makeBatch({{{0, 0, 2, 10, 3}, {X, X, X, 10, 3}, {0, 0, 1, 1, 1}, {1, 1, 0, 1, 2}}}));
  });
  add("right-pad-generation fires", "right-pad-generation", true, [] {
    return lintIds(makeBatch({{{2, 10, 11, 0, 0}, {}, {1, 1, 1, 0, 0}, {}}, {{2, 10, 11, 12, 13}, {}, {}, {}}}), true);
  });
  add("right-pad-generation quiet (left pad)", "right-pad-generation", false, [] {
    return lintIds(
        makeBatch({{{0, 0, 2, 10, 11}, {}, {0, 0, 1, 1, 1}, {1, 1, 0, 1, 2}}, {{2, 10, 11, 12, 13}, {}, {}, {}}}),
        true);
  });
  add("duplicate-bos fires", "duplicate-bos", true, [] {
    return lintIds(makeBatch({{{2, 2, 10, 11, 3}, {X, X, 10, 11, 3}, {}, {}}}));
  });
  add("duplicate-bos quiet", "duplicate-bos", false, [] {
    return lintIds(makeBatch({{{2, 10, 2, 11, 3}, {X, 10, X, 11, 3}, {}, {}}}));
  });
  add("no-graded-tokens fires", "no-graded-tokens", true, [] {
    return lintIds(makeBatch({{{2, 10, 11, 3}, {X, X, X, X}, {}, {}}, {{2, 10, 11, 3}, {X, 10, 11, 3}, {}, {}}}));
  });
  add("batch-nothing-graded fires", "batch-nothing-graded", true, [] {
    return lintIds(makeBatch({{{2, 10, 11, 3}, {X, X, X, X}, {}, {}}}));
  });
  add("batch-nothing-graded quiet", "batch-nothing-graded", false, [] {
    return lintIds(makeBatch({{{2, 10, 11, 3}, {X, X, 11, 3}, {}, {}}}));
  });
  // A generation batch (left-padded prompts for generate()) grades nothing by design: no NaN to report.
  add("batch-nothing-graded quiet (--generation, prompts only)", "batch-nothing-graded", false, [] {
    return lintIds(makeBatch({{{0, 2, 10, 11}, {X, X, X, X}, {0, 1, 1, 1}, {1, 0, 1, 2}},
                              {{2, 10, 11, 12}, {X, X, X, X}, {1, 1, 1, 1}, {0, 1, 2, 3}}}),
                   true);
  });
  add("no-graded-tokens quiet (--generation, prompts only)", "no-graded-tokens", false, [] {
    return lintIds(makeBatch({{{0, 2, 10, 11}, {X, X, X, X}, {0, 1, 1, 1}, {1, 0, 1, 2}}}), true);
  });
  add("attention-mask-not-binary fires", "attention-mask-not-binary", true, [] {
    return lintIds(makeBatch({{{2, 10, 11, 3}, {X, 10, 11, 3}, {1, 2, 1, 1}, {}}}));
  });
  add("attention-mask-not-binary fires negative", "attention-mask-not-binary", true, [] {
    return lintIds(makeBatch({{{2, 10, 11, 3}, {X, 10, 11, 3}, {1, 1, -1, 1}, {}}}));
  });
  add("rules-not-run without roles", "rules-not-run", true, [] {
    return lintIds(makeBatch({{{2, 10, 11, 3}, {X, 10, 11, 3}, {}, {}}}));
  });
  // Role-aware rules through the demo pipeline (collated: metadata known).
  add("prompt-graded fires (header graded)", "prompt-graded", true, [] {
    Batch b = demoBatch("builtin:demo", "default", 2);
    for (int64_t t = 0; t < b.length(); ++t)
      if (b.meta[0][size_t(t)].kind == PositionKind::Assistant && b.meta[0][size_t(t)].scaffolding &&
          !b.meta[0][size_t(t)].reply)
        b.labels.at(0, t) = b.inputIds.at(0, t);
    LintContext ctx = demoContext("default");
    return lintBatch(b, ctx);
  });
  add("prompt-graded quiet (default)", "prompt-graded", false,
      [] { return lintBatch(demoBatch("builtin:demo", "default", 8), demoContext("default")); });
  add("last-turn-only fires", "last-turn-only", true, [] {
    return lintBatch(demoBatch("builtin:demo", "buggy-last-turn-only", 8), demoContext("buggy-last-turn-only"));
  });
  add("last-turn-only quiet", "last-turn-only", false,
      [] { return lintBatch(demoBatch("builtin:demo", "default", 8), demoContext("default")); });
  add("reply-truncated fires", "reply-truncated", true, [] {
    return lintBatch(demoBatch(kData + "long-reply.jsonl", "default,truncation=keep_start,max_length=30"),
                     demoContext());
  });
  add("reply-truncated quiet", "reply-truncated", false,
      [] { return lintBatch(demoBatch(kData + "long-reply.jsonl", "default"), demoContext()); });
  add("empty reply: stop token graded, nothing flagged", "stop-token-not-graded", false,
      [] { return lintBatch(demoBatch(kData + "empty-reply.jsonl", "default"), demoContext("default")); });
  add("empty reply: no-graded-tokens quiet", "no-graded-tokens", false,
      [] { return lintBatch(demoBatch(kData + "empty-reply.jsonl", "default"), demoContext("default")); });
  add("stop-token-not-graded fires (grade_closing_token=false)", "stop-token-not-graded", true,
      [] { return lintBatch(demoBatch("builtin:demo", "default,grade_closing_token=false", 4), demoContext()); });
  add("full-sequence-labels info", "full-sequence-labels", true,
      [] { return lintBatch(demoBatch("builtin:demo", "hf-seq2seq-style", 4), demoContext("hf-seq2seq-style")); });
  // Dumps: roles recovered from the ids with the template and tokenizer.
  add("dump: last-turn-only via recovered roles", "last-turn-only", true,
      [] { return lintBatch(stripped(demoBatch("builtin:demo", "buggy-last-turn-only", 8)), demoContext()); });
  add("dump: stop-token-not-graded via recovered roles", "stop-token-not-graded", true, [] {
    return lintBatch(stripped(demoBatch("builtin:demo", "default,grade_closing_token=false", 8)), demoContext());
  });
  add("dump: prompt-graded quiet on correct dump", "prompt-graded", false,
      [] { return lintBatch(stripped(demoBatch("builtin:demo", "default", 8)), demoContext()); });
  add("dump: stop-token quiet on correct dump", "stop-token-not-graded", false,
      [] { return lintBatch(stripped(demoBatch("builtin:demo", "default", 8)), demoContext()); });
  add("dump: last-turn-only quiet on correct dump", "last-turn-only", false,
      [] { return lintBatch(stripped(demoBatch("builtin:demo", "default", 8)), demoContext()); });
  add("dump: reply-truncated via recovered roles", "reply-truncated", true, [] {
    return lintBatch(stripped(demoBatch(kData + "long-reply.jsonl", "default,truncation=keep_start,max_length=30")),
                     demoContext());
  });
  // Template and tokenizer checks.
  add("special-token-injection fires", "special-token-injection", true, [] {
    DatasetLintOptions o;
    return lintDataset(kData + "injection.jsonl", o);
  });
  add("special-token-injection quiet", "special-token-injection", false, [] {
    DatasetLintOptions o;
    return lintDataset(kData + "long-reply.jsonl", o);
  });
  add("framework-marker-not-found fires (TRL 0.18, template absent from row 0)", "framework-marker-not-found", true,
      [] { return lintFramework("marker-rows.jsonl", "marker.json"); });
  add("framework-marker-not-found quiet (found in every row)", "framework-marker-not-found", false,
      [] { return lintFramework("marker-found-rows.jsonl", "marker.json"); });
  add("framework-rows-dropped fires (TRL 1.10, prompt fills max_length)", "framework-rows-dropped", true,
      [] { return lintFramework("drop-rows.jsonl", "drop.json"); });
  add("framework-rows-dropped quiet (max_length fits)", "framework-rows-dropped", false,
      [] { return lintFramework("drop-rows.jsonl", "no-drop.json"); });
  // TRL 1.10's text path on media parts: the processor expands them, tokenize_fn keeps input_ids only.
  const std::string qwenTokenizer = std::string(MASKSCOPE_TOKENIZER_CACHE) + "/qwen3";
  add("framework-pixels-dropped fires (TRL 1.10, a video-only row takes the text path)", "framework-pixels-dropped",
      true, [qwenTokenizer] { return lintFramework("video-rows.jsonl", "trl-1.10.json", qwenTokenizer, "qwen2-vl"); });
  add("framework-pixels-dropped fires (TRL 1.10, an image row after a text first row)", "framework-pixels-dropped",
      true, [qwenTokenizer] {
        LintReport r = lintFramework("image-after-text-rows.jsonl", "trl-1.10.json", qwenTokenizer, "qwen2-vl");
        for (const Finding& f : r.findings) // the image row, not the text one
          if (f.rule == "framework-pixels-dropped" && f.message.find("dataset rows 1 (line 2)") == std::string::npos)
            r.findings.clear();
        return r;
      });
  add("framework-pixels-dropped quiet (TRL 1.10, an image first row: the vision collator)", "framework-pixels-dropped",
      false,
      [qwenTokenizer] { return lintFramework("image-first-rows.jsonl", "trl-1.10.json", qwenTokenizer, "qwen2-vl"); });
  add("framework-pixels-dropped quiet (TRL 1.10, text rows)", "framework-pixels-dropped", false,
      [] { return lintFramework("chat-rows.jsonl", "trl-1.10.json", "builtin:demo", "chatml"); });
  add("framework-no-generation-markers fires (chatml, assistant_only_loss)", "framework-no-generation-markers", true,
      [] { return lintFramework("chat-rows.jsonl", "assistant-only.json", "builtin:demo", "chatml"); });
  add("framework-no-generation-markers quiet (chatml-assistant-mask)", "framework-no-generation-markers", false,
      [] { return lintFramework("chat-rows.jsonl", "assistant-only.json", "builtin:demo", "chatml-assistant-mask"); });
  add("framework-pad-is-eos fires (transformers LM, pad == eos)", "framework-pad-is-eos", true,
      [] { return lintFramework("eos-rows.jsonl", "pad-is-eos.json"); });
  add("framework-pad-is-eos quiet (pad != eos)", "framework-pad-is-eos", false,
      [] { return lintFramework("eos-rows.jsonl", "pad-not-eos.json"); });
  add("framework-rows-truncated fires (LLaMA-Factory, cutoff_len 12 cuts the prompts)", "framework-rows-truncated",
      true, [] { return lintFramework("lf-rows.jsonl", "lf-truncate.json", "builtin:demo"); });
  add("framework-rows-truncated quiet (cutoff_len 64 fits)", "framework-rows-truncated", false,
      [] { return lintFramework("lf-rows.jsonl", "lf-fits.json", "builtin:demo"); });
  add("framework-padding-free-attention fires (TRL padding_free)", "framework-padding-free-attention", true,
      [] { return lintFramework("eos-rows.jsonl", "padding-free.json"); });
  add("framework-padding-free-attention quiet (padded)", "framework-padding-free-attention", false,
      [] { return lintFramework("eos-rows.jsonl", "padded.json"); });
  add("template-no-generation-markers fires", "template-no-generation-markers", true, [] {
    DatasetLintOptions o;
    o.pipeline.collatorSpec = "trl-assistant-only";
    return lintDataset(kData + "long-reply.jsonl", o);
  });
  add("template-no-generation-markers quiet with markers", "template-no-generation-markers", false, [] {
    DatasetLintOptions o;
    o.pipeline.collatorSpec = "trl-assistant-only";
    o.pipeline.templateSpec = "chatml-assistant-mask";
    return lintDataset(kData + "long-reply.jsonl", o);
  });
  add("eos-mismatch fires", "eos-mismatch", true, [] {
    DatasetLintOptions o;
    o.pipeline.render.variables["eos_token"] = "</s>";
    return lintDataset(kData + "long-reply.jsonl", o);
  });
  add("eos-mismatch quiet", "eos-mismatch", false, [] {
    DatasetLintOptions o;
    return lintDataset(kData + "long-reply.jsonl", o);
  });
  add("template-not-prefix-preserving fires (system moved to last user turn)", "template-not-prefix-preserving", true,
      [] {
        DatasetLintOptions o;
        o.pipeline.templateSpec = "mistral-v0.3";
        return lintDataset(kData + "long-reply.jsonl", o);
      });
  add("template-not-prefix-preserving quiet (chatml)", "template-not-prefix-preserving", false, [] {
    DatasetLintOptions o;
    return lintDataset(kData + "long-reply.jsonl", o);
  });
  add("boundary-merge fires (token straddles reply start)", "boundary-merge", true, [] {
    TokenizedConversation tc;
    tc.text = "user: hi assistant:Hello";
    tc.messages = {{0, "user", 0, {0, 9}, {6, 8}}, {1, "assistant", 0, {9, 24}, {19, 24}}};
    tc.tokens = {TokenInfo{1, "user:", {0, 5}}, TokenInfo{2, " hi", {5, 8}}, TokenInfo{3, " assistant", {8, 18}},
                 TokenInfo{4, ":He", {18, 21}}, TokenInfo{5, "llo", {21, 24}}};
    LintReport r;
    FindingCollector out(r);
    runConversationChecks(tc, 0, out);
    return r;
  });
  add("boundary-merge quiet (aligned)", "boundary-merge", false, [] {
    TokenizedConversation tc;
    tc.text = "user: hi assistant:Hello";
    tc.messages = {{0, "user", 0, {0, 9}, {6, 8}}, {1, "assistant", 0, {9, 24}, {19, 24}}};
    tc.tokens = {TokenInfo{1, "user:", {0, 5}}, TokenInfo{2, " hi", {5, 8}}, TokenInfo{3, " assistant:", {8, 19}},
                 TokenInfo{4, "He", {19, 21}}, TokenInfo{5, "llo", {21, 24}}};
    LintReport r;
    FindingCollector out(r);
    runConversationChecks(tc, 0, out);
    return r;
  });
  add("input-id-out-of-range fires (negative id)", "input-id-out-of-range", true, [] {
    return lintIds(makeBatch({{{2, 10, -5, 3}, {X, 10, X, 3}, {}, {}}}));
  });
  add("input-id-out-of-range fires (beyond the vocabulary)", "input-id-out-of-range", true, [] {
    Batch b = demoBatch("builtin:demo", "default", 2);
    b.inputIds.at(0, 1) = demoContext().tokenizer->vocabSize();
    return lintBatch(b, demoContext("default"));
  });
  add("input-id-out-of-range quiet", "input-id-out-of-range", false,
      [] { return lintBatch(demoBatch("builtin:demo", "default", 2), demoContext("default")); });
  add("label-not-input-id quiet", "label-not-input-id", false, [] {
    return lintIds(makeBatch({{{2, 10, 11, 12, 3}, {X, 10, 11, 12, 3}, {}, {}}}));
  });
  add("attention-mask-not-binary quiet (contiguous segment ids)", "attention-mask-not-binary", false, [] {
    return lintIds(makeBatch({{{2, 10, 3, 2, 11, 3}, {X, 10, 3, X, 11, 3}, {1, 1, 1, 2, 2, 2}, {}}}));
  });
  add("full-sequence-labels quiet (replies only)", "full-sequence-labels", false,
      [] { return lintBatch(demoBatch("builtin:demo", "default", 4), demoContext("default")); });
  add("rules-not-run quiet (roles known)", "rules-not-run", false,
      [] { return lintBatch(demoBatch("builtin:demo", "default", 4), demoContext("default")); });
  add("row-skipped fires", "row-skipped", true, [] {
    DatasetLintOptions o;
    return lintDataset(kData + "malformed.jsonl", o);
  });
  add("row-skipped quiet", "row-skipped", false, [] {
    DatasetLintOptions o;
    return lintDataset(kData + "long-reply.jsonl", o);
  });
  add("template-tokens-not-special fires (llama3 template on the ChatML demo tokenizer)", "template-tokens-not-special",
      true, [] {
        DatasetLintOptions o;
        o.pipeline.templateSpec = "llama3";
        return lintDataset(kData + "long-reply.jsonl", o);
      });
  add("template-tokens-not-special quiet (chatml on the demo tokenizer)", "template-tokens-not-special", false, [] {
    DatasetLintOptions o;
    return lintDataset(kData + "long-reply.jsonl", o);
  });
  add("think-history-stripped fires (Qwen3 template drops reasoning of an earlier turn)", "think-history-stripped",
      true, [] {
        DatasetLintOptions o;
        o.pipeline.templateSpec = kData + "qwen3-think.jinja";
        return lintDataset(kData + "think-history.jsonl", o);
      });
  add("think-history-stripped quiet (reasoning in the last turn only)", "think-history-stripped", false, [] {
    DatasetLintOptions o;
    o.pipeline.templateSpec = kData + "qwen3-think.jinja";
    return lintDataset(kData + "think-last-only.jsonl", o);
  });
  add("train-serve-mismatch fires (Qwen3-style template: reasoning stripped, empty think in the last turn)",
      "train-serve-mismatch", true, [] {
        DatasetLintOptions o;
        o.pipeline.templateSpec = kData + "qwen3-think.jinja";
        return lintDataset(kData + "think-history.jsonl", o);
      });
  add("train-serve-mismatch quiet (chatml renders every prefix the same)", "train-serve-mismatch", false, [] {
    DatasetLintOptions o;
    return lintDataset(kData + "long-reply.jsonl", o);
  });
  add("stop-token-not-graded: one finding per reply (grade_closing_token=false)", "stop-token-not-graded", true, [] {
    LintReport r = lintBatch(demoBatch(kData + "multi-turn.jsonl", "default,grade_closing_token=false"), demoContext());
    long n = 0;
    for (const Finding& f : r.findings) n += f.rule == "stop-token-not-graded";
    if (n != 5) r.findings.clear(); // 2 + 3 replies in multi-turn.jsonl: each its own finding
    return r;
  });
  add("pad-token-missing fires (tokenizer without a pad token)", "pad-token-missing", true, [] {
    DatasetLintOptions o;
    o.pipeline.tokenizerSpec = kData + "no-pad-tokenizer";
    o.pipeline.templateSpec = "chatml";
    return lintDataset(kData + "long-reply.jsonl", o);
  });
  add("pad-token-missing quiet", "pad-token-missing", false, [] {
    DatasetLintOptions o;
    return lintDataset(kData + "long-reply.jsonl", o);
  });
  // Content rules (tests/data/lint/content): each fires on its planted row, quiet on the near misses
  // (a system prompt first, a tool-call reply with empty content, two tool results in a row,
  // reasoning closed before the answer, rows that differ by one word).
  auto content = [](const char* file, const std::string& templ = {}) {
    return [file, templ] {
      DatasetLintOptions o;
      o.pipeline.templateSpec = templ;
      return lintDataset(kData + "content/" + file, o);
    };
  };
  const std::string qwen3 = kData + "qwen3-think.jinja";
  add("no-assistant-reply fires", "no-assistant-reply", true, content("no-reply.jsonl"));
  add("no-assistant-reply quiet (near misses)", "no-assistant-reply", false, content("near-miss.jsonl"));
  add("trailing-user-turn fires", "trailing-user-turn", true, content("trailing-user.jsonl"));
  add("trailing-user-turn quiet (near misses)", "trailing-user-turn", false, content("near-miss.jsonl"));
  add("empty-reply fires", "empty-reply", true, [] { return lintDataset(kData + "empty-reply.jsonl", {}); });
  add("empty-reply quiet (a tool-call reply with empty content)", "empty-reply", false, content("near-miss.jsonl"));
  add("system-not-first fires", "system-not-first", true, content("system-late.jsonl"));
  add("system-not-first quiet (system first)", "system-not-first", false, content("near-miss.jsonl"));
  add("consecutive-same-role fires", "consecutive-same-role", true, content("two-users.jsonl"));
  add("consecutive-same-role quiet (two tool results in a row)", "consecutive-same-role", false,
      content("near-miss.jsonl"));
  add("message-dropped-by-template fires (role gpt, Qwen3 template)", "message-dropped-by-template", true,
      content("gpt-role.jsonl", qwen3));
  add("message-dropped-by-template quiet (Qwen3 template, tools and reasoning)", "message-dropped-by-template", false,
      content("near-miss.jsonl", qwen3));
  // Tool rules (tests/data/lint/tools): calls.jsonl is clean (single, parallel and trailing calls,
  // ids paired) under the Qwen2.5 template and the default preset.
  auto tools = [](const char* file, const char* templ, const char* collator = "default") {
    return [file, templ, collator] {
      DatasetLintOptions o;
      o.pipeline.templateSpec = templ;
      o.pipeline.collatorSpec = collator;
      return lintDataset(kData + "tools/" + file, o);
    };
  };
  add("tool-output-graded fires (hf-lm grades everything)", "tool-output-graded", true,
      tools("calls.jsonl", "qwen2.5", "hf-lm"));
  add("tool-output-graded fires (Axolotl roles_to_train with tool)", "tool-output-graded", true,
      [] { return lintFramework("tool-rows.jsonl", "axolotl-train-tools.json", "builtin:demo"); });
  add("tool-output-graded quiet (Axolotl roles_to_train: assistant)", "tool-output-graded", false,
      [] { return lintFramework("tool-rows.jsonl", "axolotl-train-assistant.json", "builtin:demo"); });
  add("tool-output-graded quiet (default preset)", "tool-output-graded", false, tools("calls.jsonl", "qwen2.5"));
  // Unsloth's train_on_responses_only grades from the response marker to the next instruction
  // marker: Hermes writes tool outputs in their own `<|im_start|>tool` turn, which no marker ends.
  add("tool-output-graded fires (Unsloth markers, Hermes tool turn)", "tool-output-graded", true,
      [] { return lintFramework("tool-rows.jsonl", "unsloth-tool-markers.json", "builtin:demo", "hermes3"); });
  add("tool-output-graded quiet (Unsloth markers, Qwen2.5 answers in a user turn)", "tool-output-graded", false,
      [] { return lintFramework("tool-rows.jsonl", "unsloth-tool-markers.json", "builtin:demo", "qwen2.5"); });
  add("tool-call-not-graded fires ({% generation %} without the calls)", "tool-call-not-graded", true,
      tools("calls.jsonl", "qwen2.5-assistant-mask"));
  add("tool-call-not-graded quiet (Qwen3's generation spans hold the calls)", "tool-call-not-graded", false,
      tools("calls.jsonl", "qwen3-assistant-mask"));
  add("tool-call-not-graded quiet (default preset)", "tool-call-not-graded", false, tools("calls.jsonl", "qwen2.5"));
  add("tools-not-rendered fires (ChatML ignores tools)", "tools-not-rendered", true, tools("calls.jsonl", "chatml"));
  add("tools-not-rendered quiet (Qwen2.5)", "tools-not-rendered", false, tools("calls.jsonl", "qwen2.5"));
  add("tool-arguments-type fires (string arguments, tojson)", "tool-arguments-type", true,
      tools("arguments-string.jsonl", "qwen2.5"));
  add("tool-arguments-type quiet (Qwen3 prints a string as it is)", "tool-arguments-type", false,
      tools("arguments-string.jsonl", "qwen3"));
  add("tool-arguments-type quiet (dict arguments)", "tool-arguments-type", false, tools("calls.jsonl", "qwen2.5"));
  add("tool-call-unanswered fires (a parallel call half answered)", "tool-call-unanswered", true,
      tools("unanswered.jsonl", "qwen2.5"));
  add("tool-call-unanswered quiet", "tool-call-unanswered", false, tools("calls.jsonl", "qwen2.5"));
  add("tool-response-orphan fires (an id no call made)", "tool-response-orphan", true,
      tools("orphan.jsonl", "qwen2.5"));
  add("tool-response-orphan quiet", "tool-response-orphan", false, tools("calls.jsonl", "qwen2.5"));
  // train-serve-mismatch on tool turns: a call is generated as the template writes it (render-diff), so
  // Qwen2.5 agrees; Mistral v0.3 lists the tools before the last user message only, so a call trained
  // in the first of two user turns saw no tool list that serving gives it.
  // Mistral's cases count the tool-call turn (message 1) only: its final replies differ anyway (the
  // space the template writes before a reply is context in training, not in serving).
  auto callTurn = [](std::function<LintReport()> run) {
    return [run] {
      LintReport r = run();
      std::erase_if(r.findings, [](const Finding& f) {
        return f.rule == "train-serve-mismatch" && f.message.find("assistant message 1 ") == std::string::npos;
      });
      return r;
    };
  };
  add("train-serve-mismatch fires (Mistral v0.3: tools before the last user turn only)", "train-serve-mismatch", true,
      callTurn(tools("two-user-turns.jsonl", "mistral-v0.3")));
  add("train-serve-mismatch quiet (Mistral v0.3 tool call, one user turn)", "train-serve-mismatch", false,
      callTurn(tools("calls.jsonl", "mistral-v0.3")));
  add("train-serve-mismatch quiet (Qwen2.5 tool calls, two user turns)", "train-serve-mismatch", false,
      tools("two-user-turns.jsonl", "qwen2.5"));
  add("train-serve-mismatch quiet (Qwen2.5 tool calls)", "train-serve-mismatch", false,
      tools("calls.jsonl", "qwen2.5"));
  // Image rules (tests/data/lint/images): one 448x448 image through the vision built-ins; the real
  // Qwen3 tokenizer holds Qwen2-VL's image tokens (<|image_pad|> is one token), the demo one does not.
  auto images = [](const char* file, const char* templ, const char* collator, bool qwenTokenizer) {
    return [file, templ, collator, qwenTokenizer] {
      DatasetLintOptions o;
      if (qwenTokenizer) o.pipeline.tokenizerSpec = std::string(MASKSCOPE_TOKENIZER_CACHE) + "/qwen3";
      o.pipeline.templateSpec = templ;
      o.pipeline.collatorSpec = collator;
      return lintDataset(kData + "images/" + file, o);
    };
  };
  add("image-tokens-graded fires (hf-lm copies input_ids)", "image-tokens-graded", true,
      images("qwen-one-image.jsonl", "qwen2-vl", "hf-lm", false));
  add("image-tokens-graded quiet (default preset)", "image-tokens-graded", false,
      images("qwen-one-image.jsonl", "qwen2-vl", "default", false));
  add("image-token-count-mismatch fires (a placeholder typed into the text)", "image-token-count-mismatch", true,
      images("placeholder-in-text.jsonl", "qwen2-vl", "default", true));
  add("image-token-count-mismatch fires (the demo tokenizer splits <|image_pad|>)", "image-token-count-mismatch", true,
      images("qwen-one-image.jsonl", "qwen2-vl", "default", false));
  add("image-token-count-mismatch quiet (Qwen3 tokenizer, 256 pads)", "image-token-count-mismatch", false,
      images("qwen-one-image.jsonl", "qwen2-vl", "default", true));
  add("image-tokens-truncated fires (max_length=60 keep_start)", "image-tokens-truncated", true,
      images("qwen-one-image.jsonl", "qwen2-vl", "default,max_length=60,truncation=keep_start", true));
  add("image-tokens-truncated fires (max_length=60 keep_end)", "image-tokens-truncated", true,
      images("qwen-one-image.jsonl", "qwen2-vl", "default,max_length=60,truncation=keep_end", true));
  add("image-tokens-truncated quiet (no truncation)", "image-tokens-truncated", false,
      images("qwen-one-image.jsonl", "qwen2-vl", "default", true));
  add("image-without-placeholder fires (Gemma 3 skips image_url parts)", "image-without-placeholder", true,
      images("image-url.jsonl", "gemma3-vision", "default", false));
  // serving and the prompt prefix see the processor's expansion too (ConversationEncoder renderForModel)
  add("train-serve-mismatch quiet (an image row)", "train-serve-mismatch", false,
      images("qwen-one-image.jsonl", "qwen2-vl", "default", true));
  add("template-not-prefix-preserving quiet (an image row)", "template-not-prefix-preserving", false,
      images("qwen-one-image.jsonl", "qwen2-vl", "default", true));
  add("image-without-placeholder quiet (type image)", "image-without-placeholder", false,
      images("image-type.jsonl", "gemma3-vision", "default", false));
  add("unclosed-think fires (Qwen3 template)", "unclosed-think", true, content("unclosed-think.jsonl", qwen3));
  add("unclosed-think quiet (reasoning closed)", "unclosed-think", false, content("near-miss.jsonl", qwen3));
  add("duplicate-row fires (spaces differ)", "duplicate-row", true, content("duplicates.jsonl"));
  add("duplicate-row quiet (rows differ by one word)", "duplicate-row", false, content("near-miss.jsonl"));
  add("mixed-row-shapes fires (a ShareGPT row among messages rows)", "mixed-row-shapes", true,
      content("mixed-shapes.jsonl"));
  add("mixed-row-shapes quiet", "mixed-row-shapes", false, content("near-miss.jsonl"));
  // Axolotl's legacy path (roles_to_train and train_on_eos null) trains only the last turn; the demo
  // rows 2, 4, 7, 8 have two or more assistant turns. With v0.18's defaults every turn is trained.
  add("axolotl-legacy-last-turn fires (roles_to_train and train_on_eos null)", "axolotl-legacy-last-turn", true, [] {
    LintReport r = lintBatch(frameworkBatch(kData + "axolotl-legacy-spec.json"), demoContext());
    for (const Finding& f : r.findings)
      if (f.rule == "axolotl-legacy-last-turn" && f.message.find("in 4 of 9 rows") == std::string::npos)
        r.findings.clear(); // the count must name the four multi-turn rows
    return r;
  });
  add("axolotl-legacy-last-turn quiet (Axolotl 0.18 defaults)", "axolotl-legacy-last-turn", false,
      [] { return lintBatch(frameworkBatch(kData + "axolotl-default-spec.json"), demoContext()); });
  add("last-turn-only fires on Axolotl's legacy batch too", "last-turn-only", true,
      [] { return lintBatch(frameworkBatch(kData + "axolotl-legacy-spec.json"), demoContext()); });
  // Preference pairs: a template whose generation prompt opens <think> (DeepSeek-R1 style) renders the
  // prompt differently inside prompt + reply; the ChatML template renders it as a prefix.
  add("preference-prompt-mismatch fires (generation prompt not a prefix of the reply)", "preference-prompt-mismatch",
      true, [] {
        DatasetLintOptions o;
        o.pipeline.templateSpec = kPreference + "think-generation-prompt.jinja";
        return lintPreferenceDataset(kPreference + "conversational.jsonl", o);
      });
  add("preference-prompt-mismatch quiet (chatml)", "preference-prompt-mismatch", false, [] {
    DatasetLintOptions o;
    o.pipeline.templateSpec = "chatml";
    return lintPreferenceDataset(kPreference + "conversational.jsonl", o);
  });
  return cases;
}

} // namespace

void TestLint::rules_data() {
  QTest::addColumn<QString>("rule");
  QTest::addColumn<bool>("expectFire");
  QTest::addColumn<int>("caseIndex");
  gCases.clear();
  for (RuleCase& c : ruleCases()) {
    gCases.push_back(std::move(c.run));
    QTest::newRow(c.name) << QString::fromLatin1(c.rule) << c.fire << int(gCases.size() - 1);
  }
}

void TestLint::everyRuleHasFiresAndQuietCases() {
  std::set<std::pair<std::string, bool>> covered;
  for (const RuleCase& c : ruleCases()) covered.insert({c.rule, c.fire});
  for (const RuleInfo& r : allRules()) {
    const std::string name(r.name);
    QVERIFY2(covered.count({name, true}), ("no case in ruleCases() where " + name + " fires").c_str());
    QVERIFY2(covered.count({name, false}), ("no case in ruleCases() where " + name + " stays quiet").c_str());
  }
}

void TestLint::rules() {
  QFETCH(QString, rule);
  QFETCH(bool, expectFire);
  QFETCH(int, caseIndex);
  QVERIFY2(findRule(rule.toStdString()) != nullptr, "rule missing from the catalogue");
  LintReport r = gCases.at(size_t(caseIndex))();
  const bool fired = fires(r, rule.toStdString());
  QVERIFY2(fired == expectFire, (std::string(expectFire ? "expected " : "did not expect ") + rule.toStdString() +
                                 "; findings:" + describe(r))
                                    .c_str());
}

// Every registered preset over builtin:demo, with what its case file (tests/data/collate/presets/
// <preset>.json, "lint") says it demonstrates: a correct preset gives no error finding but those of
// "accepted" (rule -> why the framework it mirrors does that; each must still fire); a buggy one fires
// each rule of "fires" (at least one) and none of "quiet" (the rules it must not be blamed for).
void TestLint::presets_data() {
  QTest::addColumn<QString>("collator");
  QTest::addColumn<bool>("buggy");
  QTest::addColumn<QStringList>("demonstrates");
  QTest::addColumn<QStringList>("quiet");
  QTest::addColumn<QStringList>("accepted");
  for (const CollatorPreset& p : collatorPresets()) {
    QStringList demonstrates, quiet, accepted;
    const std::string file = MASKSCOPE_TEST_DATA_DIR "/collate/presets/" + p.name + ".json";
    try {
      const nlohmann::json lint = parseJsonOrThrow(readFileCapped(file, int64_t(1) << 20), {file}).at("lint");
      for (const auto& r : lint.at("fires")) demonstrates << QString::fromStdString(r.get<std::string>());
      for (const auto& r : lint.at("quiet")) quiet << QString::fromStdString(r.get<std::string>());
      if (lint.contains("accepted"))
        for (const auto& [rule, why] : lint.at("accepted").items()) accepted << QString::fromStdString(rule);
    } catch (const std::exception& e) {
      QFAIL(qPrintable(QStringLiteral("%1: %2").arg(QString::fromStdString(file), QString::fromUtf8(e.what()))));
    }
    QTest::newRow(p.name.c_str()) << QString::fromStdString(p.name) << p.buggy << demonstrates << quiet << accepted;
  }
}

void TestLint::presets() {
  QFETCH(QString, collator);
  QFETCH(bool, buggy);
  QFETCH(QStringList, demonstrates);
  QFETCH(QStringList, quiet);
  QFETCH(QStringList, accepted);
  DatasetLintOptions o;
  o.pipeline.collatorSpec = collator.toStdString();
  o.maxFindings = -1;
  LintReport r = lintDataset("builtin:demo", o);
  QCOMPARE(r.summary.rowsRead, 62L);
  QVERIFY2(buggy == !demonstrates.isEmpty(), "a buggy preset names the rules it demonstrates; a correct one none");
  if (!buggy)
    for (const Finding& f : r.findings)
      QVERIFY2(f.severity != Severity::Error || accepted.contains(QString::fromStdString(f.rule)),
               ("error findings on a correct preset:" + describe(r)).c_str());
  for (const QString& rule : accepted)
    QVERIFY2(fires(r, rule.toStdString(), Severity::Error), ("accepted but quiet: " + rule.toStdString()).c_str());
  for (const QString& rule : demonstrates)
    QVERIFY2(fires(r, rule.toStdString()), ("missing " + rule.toStdString() + ":" + describe(r)).c_str());
  for (const QString& rule : quiet)
    QVERIFY2(!fires(r, rule.toStdString()), ("blamed for " + rule.toStdString() + ":" + describe(r)).c_str());
}

void TestLint::malformedRows() {
  DatasetLintOptions o;
  LintReport r = lintDataset(kData + "malformed.jsonl", o);
  std::vector<long> lines;
  for (const Finding& f : r.findings)
    if (f.rule == "row-skipped") {
      QVERIFY(f.line.has_value());
      lines.push_back(*f.line);
    }
  QCOMPARE(lines, (std::vector<long>{2, 4, 5, 6}));
  QCOMPARE(r.summary.rowsSkipped, 4L);
  QCOMPARE(r.summary.rowsRead, 3L);
  QCOMPARE(r.summary.rows, 3L);
  // Unreadable rows are data errors: the training library would refuse the file.
  QCOMPARE(r.summary.errors, 4L);
  QCOMPARE(r.summary.dataErrors, 4L);
}

// A JSON-list file (content/list.json, indent 2): findings name the element's index in the list
// (unreadable elements count) and the line of its opening brace; the row number counts readable rows.
void TestLint::jsonListItems() {
  const LintReport r = lintDataset(kData + "content/list.json", {});
  std::map<std::string, const Finding*> byRule;
  for (const Finding& f : r.findings) byRule.emplace(f.rule, &f);
  QVERIFY2(byRule.count("row-skipped") && byRule.count("empty-reply"), describe(r).c_str());
  const Finding& skipped = *byRule["row-skipped"];
  QCOMPARE(skipped.item, std::optional<long>(1));
  QCOMPARE(skipped.line, std::optional<long>(14));
  QVERIFY2(skipped.message.starts_with("item 1 (line 14): "), skipped.message.c_str());
  const Finding& empty = *byRule["empty-reply"];
  QCOMPARE(empty.row, std::optional<int64_t>(1));
  QCOMPARE(empty.item, std::optional<long>(2));
  QCOMPARE(empty.line, std::optional<long>(26));
  QVERIFY2(empty.message.starts_with("item 2 (line 26): "), empty.message.c_str());
}

void TestLint::explanations() {
  const char* contract[] = {"pad-graded",
                            "pad-attended",
                            "stop-token-not-graded",
                            "prompt-graded",
                            "no-graded-tokens",
                            "reply-truncated",
                            "last-turn-only",
                            "packing-cross-attention",
                            "position-ids-not-reset",
                            "left-pad-positions",
                            "right-pad-generation",
                            "labels-preshifted",
                            "duplicate-bos",
                            "special-token-injection",
                            "template-no-generation-markers",
                            "boundary-merge",
                            "shape-mismatch",
                            "label-out-of-range"};
  for (const char* name : contract) QVERIFY2(findRule(name), name);
  std::set<std::string> seen;
  for (const RuleInfo& r : allRules()) {
    QVERIFY(seen.insert(std::string(r.name)).second);
    QVERIFY(r.explanation.size() > 200);
    QVERIFY(!r.title.empty());
    QVERIFY2(!ruleFix(r).empty(), (std::string(r.name) + ": the explanation ends without \"Fix: ...\"").c_str());
    for (char c : r.name) QVERIFY((c >= 'a' && c <= 'z') || c == '-');
  }
  QVERIFY(findRule("no-such-rule") == nullptr);
}

void TestLint::docsInSync() {
  const std::string path = MASKSCOPE_SOURCE_DIR "/docs/lint-rules.md";
  if (qEnvironmentVariableIsSet("MASKSCOPE_REGENERATE")) {
    std::ofstream(path, std::ios::binary) << rulesMarkdown();
  }
  QVERIFY2(fileExists(path), "docs/lint-rules.md is missing (run with MASKSCOPE_REGENERATE=1)");
  QVERIFY2(readFileCapped(path) == rulesMarkdown(),
           "docs/lint-rules.md is stale (run test_lint with MASKSCOPE_REGENERATE=1)");
}

namespace {
int runLintCapture(const LintArgs& a, bool json, std::string& out, std::string& err) {
  std::ostringstream o, e;
  CommandIO io{o, e, json, false};
  int rc = runCommand(io, [&] { return runLint(a, io); });
  out = o.str();
  err = e.str();
  return rc;
}

std::string writeDump(const Batch& b, const std::string& name) {
  nlohmann::json j;
  auto grid = [](const IntGrid& g) {
    nlohmann::json rows = nlohmann::json::array();
    for (int64_t r = 0; r < g.rows; ++r) {
      nlohmann::json row = nlohmann::json::array();
      for (int64_t t = 0; t < g.cols; ++t) row.push_back(g.at(r, t));
      rows.push_back(row);
    }
    return rows;
  };
  j["input_ids"] = grid(b.inputIds);
  j["attention_mask"] = grid(b.attentionMask);
  j["labels"] = grid(b.labels);
  if (!b.positionIds.empty()) j["position_ids"] = grid(b.positionIds);
  if (b.padTokenId) j["pad_token_id"] = *b.padTokenId;
  if (b.eosTokenId) j["eos_token_id"] = *b.eosTokenId;
  std::string path = QDir::tempPath().toStdString() + "/" + name;
  std::ofstream(path) << j.dump();
  return path;
}
} // namespace

void TestLint::commandJsonAndExitCodes() {
  std::string out, err;
  // --explain works without INPUT.
  LintArgs ex;
  ex.explain = "pad-graded";
  QCOMPARE(runLintCapture(ex, false, out, err), 0);
  QVERIFY(out.find("pad-graded") != std::string::npos && out.find("-100") != std::string::npos);
  ex.explain = "nope";
  QCOMPARE(runLintCapture(ex, false, out, err), 2);
  // A buggy dump: exit 1, contract JSON shape.
  LintArgs a;
  a.input = writeDump(demoBatch("builtin:demo", "buggy-max-length-all-ones", 4), "maskscope-lint-buggy.json");
  a.tokenizerSpec = "builtin:demo";
  QCOMPARE(runLintCapture(a, true, out, err), 1);
  auto j = nlohmann::json::parse(out);
  QVERIFY(j["findings"].is_array() && j["summary"].is_object());
  for (const auto& f : j["findings"]) {
    QVERIFY(f["rule"].is_string() && f["message"].is_string());
    QVERIFY(f["severity"] == "error" || f["severity"] == "warning" || f["severity"] == "info");
    QVERIFY(f["row"].is_null() || f["row"].is_number_integer());
    QVERIFY(f["position"].is_null() || f["position"].is_number_integer());
  }
  for (const char* k : {"rows", "errors", "warnings", "infos"}) QVERIFY2(j["summary"][k].is_number_integer(), k);
  QCOMPARE(j["summary"]["rows"].get<long>(), 4L);
  QVERIFY(j["summary"]["errors"].get<long>() > 0);
  // A correct dump: exit 0; and the text report names the rules.
  a.input = writeDump(demoBatch("builtin:demo", "default", 4), "maskscope-lint-ok.json");
  QCOMPARE(runLintCapture(a, true, out, err), 0);
  a.input = writeDump(demoBatch("builtin:demo", "buggy-pad-is-eos", 4), "maskscope-lint-eos.json");
  QCOMPARE(runLintCapture(a, false, out, err), 1);
  QVERIFY2(out.find("stop-token-not-graded") != std::string::npos, out.c_str());
  QVERIFY(out.find("summary") != std::string::npos);
  // Unusable input: exit 2 with the file named.
  a.input = "/nonexistent/dataset.jsonl";
  QCOMPARE(runLintCapture(a, true, out, err), 2);
  QVERIFY(out.empty());
  QVERIFY(err.find("/nonexistent/dataset.jsonl") != std::string::npos);
  // A dataset through the command, with --max-findings.
  LintArgs d;
  d.input = "builtin:demo";
  d.collatorSpec = "buggy-max-length-all-ones";
  d.maxFindings = 5;
  QCOMPARE(runLintCapture(d, true, out, err), 1);
  j = nlohmann::json::parse(out);
  QCOMPARE(j["findings"].size(), size_t(5));
  QVERIFY(j["summary"]["findings_omitted"].get<long>() > 0);
  QVERIFY(j["summary"]["graded"]["padding"].get<long>() > 0);
}

// A max_length/all-ones dump without pad_token_id and without --tokenizer: the pads are invisible,
// and the text report says which rules could not see them and which flag fixes it; --pad-id makes
// pad-graded and pad-attended fire; --fail-on warning turns warnings into exit status 1.
void TestLint::padIdAndFailOn() {
  std::string out, err;
  LintArgs a;
  a.input = kData + "all-ones-no-pad-id.json";
  QCOMPARE(runLintCapture(a, false, out, err), 0);
  QVERIFY2(out.find("pad-graded") != std::string::npos && out.find("--pad-id") != std::string::npos, out.c_str());
  QVERIFY2(out.find("--tokenizer") != std::string::npos, out.c_str());
  QVERIFY2(out.find("error   pad-graded") == std::string::npos, out.c_str());
  a.padId = 151643; // Qwen3's <|endoftext|>
  QCOMPARE(runLintCapture(a, true, out, err), 1);
  auto j = nlohmann::json::parse(out);
  std::set<std::string> rules;
  for (const auto& f : j["findings"]) rules.insert(f["rule"].get<std::string>());
  QVERIFY2(rules.count("pad-graded") && rules.count("pad-attended"), out.c_str());
  // --fail-on: a dump whose only problem is a warning (pad-attended; the pads are not graded).
  a.input = kData + "pads-attended-only.json";
  a.padId.reset();
  QCOMPARE(runLintCapture(a, true, out, err), 0);
  j = nlohmann::json::parse(out);
  QCOMPARE(j["summary"]["errors"].get<long>(), 0L);
  QVERIFY2(j["summary"]["warnings"].get<long>() > 0, out.c_str());
  a.failOn = "warning";
  QCOMPARE(runLintCapture(a, true, out, err), 1);
  a.failOn = "info";
  QCOMPARE(runLintCapture(a, true, out, err), 2);
  // --pad-id is refused for datasets (their pad id comes from the tokenizer and collator).
  LintArgs d;
  d.input = "builtin:demo";
  d.padId = 0;
  QCOMPARE(runLintCapture(d, true, out, err), 2);
  QVERIFY(err.find("--pad-id") != std::string::npos);
}

void TestLint::shardsAndThreads() {
  DatasetLintOptions o;
  o.pipeline.collatorSpec = "buggy-max-length-all-ones";
  o.maxFindings = -1;
  o.threads = 1;
  LintReport whole = lintDataset("builtin:demo", o);
  o.threads = 2;
  LintReport parallel = lintDataset("builtin:demo", o);
  QCOMPARE(parallel.findings.size(), whole.findings.size());
  for (size_t i = 0; i < whole.findings.size(); ++i) QCOMPARE(parallel.findings[i].message, whole.findings[i].message);
  o.shardCount = 2;
  long rows = 0, findings = 0;
  for (int k = 0; k < 2; ++k) {
    o.shardIndex = k;
    LintReport s = lintDataset("builtin:demo", o);
    rows += s.summary.rows;
    // Run-level infos (full-sequence-labels) appear once per shard; everything else exactly once.
    for (const Finding& f : s.findings) findings += f.severity != Severity::Info;
  }
  long wholeFindings = 0;
  for (const Finding& f : whole.findings) wholeFindings += f.severity != Severity::Info;
  QCOMPARE(rows, whole.summary.rows);
  QCOMPARE(findings, wholeFindings);
}

// Boundaries of naive packing come from the tokens (core/mask), a mid-row pad separator is not
// padding, and the loss request gets a block_diagonal variant that splits the row there.
void TestLint::naivePackingBoundaries_data() {
  QTest::addColumn<QString>("file");
  QTest::addColumn<int>("row");
  QTest::addColumn<QList<int>>("starts"); // expected separatorBoundaries
  QTest::addColumn<int>("pads");          // paddingOfRow count
  QTest::newRow("eos-joins") << QStringLiteral("naive-packing-eos.json") << 0 << QList<int>{26, 43} << 3;
  QTest::newRow("eos-joins-single-example-row") << QStringLiteral("naive-packing-eos.json") << 1 << QList<int>{} << 46;
  QTest::newRow("pad-joins") << QStringLiteral("naive-packing-pad.json") << 0 << QList<int>{26, 43} << 2;
  QTest::newRow("unpacked") << QStringLiteral("unpacked-chatml.json") << 0 << QList<int>{} << 1;
}

void TestLint::naivePackingBoundaries() {
  QFETCH(QString, file);
  QFETCH(int, row);
  QFETCH(QList<int>, starts);
  QFETCH(int, pads);
  const Batch b = loadBatchDump(kData + file.toStdString());
  std::vector<int64_t> expected(starts.begin(), starts.end());
  QCOMPARE(separatorBoundaries(b, row), expected);
  const std::vector<uint8_t> pad = paddingOfRow(b, row);
  QCOMPARE(int(std::count(pad.begin(), pad.end(), uint8_t(1))), pads);
  for (int64_t t : expected) QVERIFY(!pad[size_t(t - 1)]); // the separator is text, not padding
  const std::vector<Segment> segs = segmentsOfRow(b, row);
  QCOMPARE(segs.size(), expected.empty() ? size_t(0) : expected.size() + 1);
  for (size_t i = 0; i < expected.size(); ++i) QCOMPARE(segs[i + 1].begin, expected[i]);

  const LossRequest req = buildLossRequest(b, false);
  bool blockDiagonal = false;
  for (const auto& v : req.variants)
    if (v.name == "block_diagonal") {
      blockDiagonal = true;
      // Segment ids in the mask: one per example; the position ids restart at each boundary.
      for (int64_t t : expected) {
        QCOMPARE(v.attentionMask.at(row, t), v.attentionMask.at(row, t - 1) + 1);
        QCOMPARE(v.positionIds.at(row, t), int64_t(0));
      }
    }
  QCOMPARE(blockDiagonal, file != QStringLiteral("unpacked-chatml.json"));
}

// A flattened row's cu_seq_lens_q/k become its segments (whatever the position ids say), the loss
// request splits the row there, and offsets that go backwards are refused with the key named.
void TestLint::paddingFreeCuSeqLens() {
  for (const char* file : {"padding-free-cu-seq-lens.json", "padding-free-positions-run-on.json"}) {
    const Batch b = loadBatchDump(kData + file);
    const std::vector<Segment> segs = segmentsOfRow(b, 0);
    QCOMPARE(segs.size(), size_t(3));
    QCOMPARE(segs[1].begin, int64_t(25));
    QCOMPARE(segs[2].begin, int64_t(41));
    QCOMPARE(segs[2].end, b.length());
    bool blockDiagonal = false;
    for (const auto& v : buildLossRequest(b, false).variants)
      if (v.name == "block_diagonal") {
        blockDiagonal = true;
        QCOMPARE(v.positionIds.at(0, 41), int64_t(0));
        QCOMPARE(v.attentionMask.at(0, 41), int64_t(3));
      }
    QVERIFY2(blockDiagonal, file);
  }
  try {
    loadBatchDump(kData + "cu-seq-lens-decreasing.json");
    QFAIL("decreasing cu_seq_lens was accepted");
  } catch (const Error& e) {
    QVERIFY2(std::string(e.what()).find("cu_seq_lens_q") != std::string::npos, e.what());
  }
}

void TestLint::rowFactsCounts() {
  // BOS, a user token, the assistant header, two reply tokens (the second closes it), one pad;
  // labels = input_ids except the pad, attention_mask all ones (a buggy mask: the pad is attended).
  Batch b = makeBatch({{{2, 10, 11, 12, 3, 0}, {2, 10, 11, 12, 3, X}, {}, {}}});
  auto meta = [](PositionKind k, bool reply) {
    PositionMeta m;
    m.kind = k;
    m.reply = reply;
    return m;
  };
  b.meta = {{meta(PositionKind::Template, false), meta(PositionKind::User, false), meta(PositionKind::Assistant, false),
             meta(PositionKind::Assistant, true), meta(PositionKind::Assistant, true),
             meta(PositionKind::Padding, false)}};
  const RowFacts f = rowFacts(b, 0);
  QCOMPARE(f.pads, int64_t(1));
  QCOMPARE(f.attendedPads, int64_t(1));
  QCOMPARE(f.graded[RolePrompt], int64_t(2)); // the user token and the header; the BOS at 0 is never scored
  QCOMPARE(f.graded[RoleReply], int64_t(2));
  QCOMPARE(f.graded[RolePad], int64_t(0));
  QVERIFY(f.labelAtFirstPosition);
  const LossBreakdown d = computeLossBreakdown(b, 0, std::vector<double>(6, 1.0));
  for (int k = 0; k < kRoleCount; ++k) QCOMPARE(d.graded[k], f.graded[k]);
}

void TestLint::lintAndLossCountsAgree_data() {
  QTest::addColumn<QString>("collator");
  for (const CollatorPreset& p : collatorPresets()) QTest::newRow(p.name.c_str()) << QString::fromStdString(p.name);
}

// The linter's summary and the loss breakdown count prompt / reply / pad / unknown graded tokens and
// padding positions of the same batches identically (both from core/mask's rowFacts rules).
void TestLint::lintAndLossCountsAgree() {
  QFETCH(QString, collator);
  const std::string spec = collator.toStdString();
  PipelineSpec ps;
  ps.collatorSpec = spec;
  DatasetPipeline pipeline(ps);
  const std::vector<Conversation> rows = readDataset("builtin:demo", nullptr, 24);
  QCOMPARE(rows.size(), size_t(24));
  bool packed = false;
  int64_t replies = 0;
  for (size_t first = 0; first < rows.size(); first += 6) {
    const Batch b = pipeline.collateConversations({rows.begin() + long(first), rows.begin() + long(first + 6)});
    const LintSummary lint = lintBatch(b, demoContext(spec)).summary;
    const IntGrid roles = positionRoles(b);
    int64_t graded[kRoleCount] = {}, pads = 0;
    for (int r = 0; r < int(b.batchSize()); ++r) {
      const LossBreakdown d = computeLossBreakdown(b, r, std::vector<double>(size_t(b.length()), 1.0), roles);
      for (int k = 0; k < kRoleCount; ++k) graded[k] += d.graded[k];
    }
    for (int64_t v : roles.values) pads += v == RolePad;
    const std::string where = spec + ", rows " + std::to_string(first) + "..";
    QVERIFY2(lint.gradedPrompt == graded[RolePrompt], ("prompt: " + where).c_str());
    QVERIFY2(lint.gradedReply == graded[RoleReply], ("reply: " + where).c_str());
    QVERIFY2(lint.gradedPadding == graded[RolePad], ("pad: " + where).c_str());
    QVERIFY2(lint.gradedUnknown == graded[RoleUnknown], ("unknown: " + where).c_str());
    QVERIFY2(lint.paddingPositions == pads, ("padding positions: " + where).c_str());
    const RowFacts facts = batchFacts(b); // what the app's summary and row titles show
    QCOMPARE(facts.pads, pads);
    QCOMPARE(facts.gradedTotal(), lint.graded);
    for (const auto& segs : b.segments) packed = packed || segs.size() > 1;
    replies += graded[RoleReply];
  }
  QVERIFY(replies > 0);
  // Packed presets pack these rows into segments; naive packing keeps no segment boundaries.
  const Packing packing = parseCollatorSpec(spec).packing;
  if (packing != Packing::None && packing != Packing::Naive) QVERIFY(packed);
}

// unclosed-think rings the tag, never the first token of its message. The Qwen3 template writes
// "<|im_start|>assistant\n<think>\n\n</think>\n\n" before a reply without reasoning, whose own <think> is
// the unclosed one (after the template's closed pair); it moves a reply's reasoning into a block of its
// own (the stray </think> is the block's) and drops what comes before a second <think> (the block's
// <think> is the one left to ring).
void TestLint::unclosedThinkPointsAtTheTag_data() {
  QTest::addColumn<QString>("row");
  QTest::addColumn<QString>("tag");
  QTest::addColumn<bool>("last"); // the render's last such tag (else its first)
  QTest::newRow("never closed") << QString() << QStringLiteral("<think>") << true;
  QTest::newRow("closed without opening")
      << QStringLiteral(R"({"messages": [{"role": "user", "content": "Spell cat backwards."}, )"
                        R"({"role": "assistant", "content": "Reversed letters.</think>\n\ntac"}]})")
      << QStringLiteral("</think>") << false;
  QTest::newRow("two opened, one closed")
      << QStringLiteral(
             R"({"messages": [{"role": "user", "content": "Is 91 prime?"}, {"role": "assistant", )"
             R"("content": "<think>91 = 7 x 13.<think> So it is not prime.</think>\n\nNo: 91 is 7 times 13."}]})")
      << QStringLiteral("<think>") << false;
}

void TestLint::unclosedThinkPointsAtTheTag() {
  QFETCH(QString, row);
  QFETCH(QString, tag);
  QFETCH(bool, last);
  QTemporaryDir dir;
  std::string data = kData + "content/unclosed-think.jsonl";
  if (!row.isEmpty()) {
    data = dir.filePath(QStringLiteral("row.jsonl")).toStdString();
    std::ofstream(data) << row.toStdString() << "\n";
  }
  DatasetLintOptions o;
  o.pipeline.templateSpec = kData + "qwen3-think.jinja";
  const LintReport r = lintDataset(data, o);
  const auto f =
      std::find_if(r.findings.begin(), r.findings.end(), [](const Finding& x) { return x.rule == "unclosed-think"; });
  QVERIFY(f != r.findings.end());
  QVERIFY(f->position.has_value());
  DatasetPipeline p(o.pipeline);
  const TokenizedConversation tc = p.encode(readDataset(data).at(0));
  QVERIFY(size_t(*f->position) < tc.tokens.size());
  const TokenInfo& at = tc.tokens[size_t(*f->position)];
  const std::string t = tag.toStdString();
  const size_t want = last ? tc.text.rfind(t) : tc.text.find(t);
  QVERIFY(want != std::string::npos);
  QVERIFY2(at.span.contains(int64_t(want)),
           qPrintable(QStringLiteral("position %1 covers bytes %2-%3 (%4), %5 is at %6")
                          .arg(*f->position)
                          .arg(at.span.begin)
                          .arg(at.span.end)
                          .arg(QString::fromStdString(at.text), tag)
                          .arg(want)));
  if (last) QVERIFY2(tc.text.rfind("</think>", size_t(at.span.begin)) != std::string::npos, tc.text.c_str());
}

QTEST_GUILESS_MAIN(TestLint)
#include "tst_lint.moc"
