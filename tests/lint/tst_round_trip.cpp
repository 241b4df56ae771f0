// One truth between a dataset and its dump (issue 23): for every collator preset x the real Qwen3,
// Llama-3, Gemma-3 tokenizers (tools/fetch-tokenizers.sh cache) with their own templates and
// builtin:demo, the batch `collate --json` writes, read back as a dump and linted with the same
// tokenizer, template and collator, reports the same error and warning rules as linting the
// dataset; and the chats joined naively into one row (no segment ids, no position ids) are found
// packed (packing-cross-attention) with the tokenizer alone. Fixture: tests/data/lint/round-trip/.
#include "core/batchio/BatchJson.h"
#include "core/batchio/BatchLoader.h"
#include "core/collate/DatasetPipeline.h"
#include "core/collate/TemplateVariables.h"
#include "core/lint/Lint.h"
#include "core/lint/RowLayout.h"
#include "tests/TokenizerCacheRequired.h"

#include <QTemporaryDir>
#include <QTest>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

using namespace maskscope;

namespace {

const std::string kChats = MASKSCOPE_TEST_DATA_DIR "/lint/round-trip/chats.jsonl";

std::string tokenizerSpecOf(const std::string& name) {
  return name == "demo" ? std::string("builtin:demo") : std::string(MASKSCOPE_TOKENIZER_CACHE) + "/" + name;
}

// Rules a dump cannot be held to, with the reason:
const std::map<std::string, std::string> kExcluded = {
    // the source text: they compare a conversation's messages with its render
    {"special-token-injection", "needs the message text before the template"},
    {"boundary-merge", "needs the message text before the template"},
    {"think-history-stripped", "needs the message text before the template"},
    {"train-serve-mismatch", "needs the messages to render the serving prefix of each turn"},
    {"reply-truncated", "needs the reply before truncation (a dump only shows a missing end)"},
    // the reader
    {"row-skipped", "a dump has no unreadable rows"},
    // the template itself (the dataset run also checks its rows' render prefixes)
    {"template-not-prefix-preserving", "a template check"},
    {"template-no-generation-markers", "a template check"},
    {"template-tokens-not-special", "a template check"},
    {"eos-mismatch", "a template check"},
    {"pad-token-missing", "a template check"},
};

std::set<std::string> rulesOf(const LintReport& r) {
  std::set<std::string> out;
  for (const Finding& f : r.findings)
    if (f.severity >= Severity::Warning && !kExcluded.count(f.rule)) out.insert(f.rule);
  return out;
}

std::string join(const std::set<std::string>& s) {
  std::string out;
  for (const auto& x : s) out += (out.empty() ? "" : ", ") + x;
  return "{" + out + "}";
}

std::string describe(const LintReport& r) {
  std::string s;
  for (const Finding& f : r.findings)
    if (f.severity >= Severity::Warning) s += "\n    " + f.rule + ": " + f.message;
  return s;
}

// The lint context a user gives the dump: the tokenizer, its template, its variables.
LintContext contextFor(const DatasetPipeline& p, std::optional<CollatorSpec> collator) {
  LintContext ctx;
  ctx.tokenizer = p.encoder().tokenizerPtr();
  ctx.chatTemplate = p.encoder().templatePtr();
  ctx.render = templateVariables({}, ctx.chatTemplate.get(), ctx.tokenizer.get());
  ctx.collator = std::move(collator);
  return ctx;
}

// The pipeline of each tokenizer, loaded once (Qwen3's tokenizer.json is 11 MB).
std::map<std::string, std::unique_ptr<DatasetPipeline>> gPipelines;

const DatasetPipeline* pipelineFor(const std::string& name) {
  auto it = gPipelines.find(name);
  if (it != gPipelines.end()) return it->second.get();
  PipelineSpec ps;
  ps.tokenizerSpec = tokenizerSpecOf(name);
  return (gPipelines[name] = std::make_unique<DatasetPipeline>(ps)).get();
}

bool cached(const std::string& name) {
  return name == "demo" || std::filesystem::exists(tokenizerSpecOf(name) + "/tokenizer_config.json");
}

} // namespace

class TestRoundTrip : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void initTestCase() { QVERIFY(tmp_.isValid()); }
  void dumpLintsLikeDataset_data();
  void dumpLintsLikeDataset();
  void naiveJoinIsPacked_data();
  void naiveJoinIsPacked();
  void multiTurnStaysOne_data();
  void multiTurnStaysOne();
  void cleanupTestCase() { gPipelines.clear(); }

private:
  QTemporaryDir tmp_;
};

void TestRoundTrip::dumpLintsLikeDataset_data() {
  QTest::addColumn<QString>("tokenizer");
  QTest::addColumn<QString>("preset");
  for (const char* tok : {"demo", "qwen3", "llama3", "gemma3"})
    for (const CollatorPreset& p : collatorPresets())
      QTest::newRow((std::string(tok) + " " + p.name).c_str())
          << QString::fromLatin1(tok) << QString::fromStdString(p.name);
}

void TestRoundTrip::dumpLintsLikeDataset() {
  QFETCH(QString, tokenizer);
  QFETCH(QString, preset);
  REQUIRE_TOKENIZER_CACHE(cached(tokenizer.toStdString()));
  const CollatorSpec spec = parseCollatorSpec(preset.toStdString());
  const DatasetPipeline pipeline(*pipelineFor(tokenizer.toStdString()), spec);

  DatasetLintOptions o;
  o.threads = 1;
  o.microBatchSize = 8; // the whole fixture in one micro-batch: the batch collate writes
  const LintReport ofDataset = lintDataset(kChats, o, pipeline);

  // collate --json, saved, read back as a dump.
  const Batch collated = pipeline.collateConversations(readDataset(kChats));
  const std::string path =
      tmp_.filePath(tokenizer + QStringLiteral("-") + preset + QStringLiteral(".json")).toStdString();
  std::ofstream(path) << batchToJson(collated).dump() << "\n";
  const Batch dump = loadBatchDump(path);
  QVERIFY(dump.meta.empty());
  const LintReport ofDump = lintBatch(dump, contextFor(pipeline, spec));

  const std::set<std::string> want = rulesOf(ofDataset), got = rulesOf(ofDump);
  if (want != got) // in full (QVERIFY2 cuts its message short)
    qInfo("findings of the dataset:%s\nfindings of the dump:%s", describe(ofDataset).c_str(), describe(ofDump).c_str());
  QVERIFY2(want == got, ("dataset " + join(want) + " vs dump " + join(got) + "\n  dataset:" + describe(ofDataset) +
                         "\n  dump:" + describe(ofDump))
                            .c_str());
}

void TestRoundTrip::naiveJoinIsPacked_data() {
  QTest::addColumn<QString>("tokenizer");
  QTest::addColumn<QString>("preset");
  QTest::addColumn<QString>("separator"); // a token written after each chat, or none
  QTest::addColumn<int>("examples");      // examples found in the joined row
  // Qwen3 (a think block in every final reply), Llama-3 and Gemma-3 (a BOS per conversation) show
  // every join; the demo's ChatML shows only where a system turn follows other turns (the chats at
  // 1 and 6): three examples. Without a system turn a ChatML join reads as one multi-turn chat.
  for (const char* preset : {"default", "trl-assistant-only", "buggy-no-position-reset", "buggy-max-length-all-ones"}) {
    const QString p = QString::fromLatin1(preset);
    QTest::newRow((std::string("demo ") + preset).c_str()) << QStringLiteral("demo") << p << QString() << 3;
    QTest::newRow((std::string("qwen3 ") + preset).c_str()) << QStringLiteral("qwen3") << p << QString() << 8;
    QTest::newRow((std::string("llama3 ") + preset).c_str()) << QStringLiteral("llama3") << p << QString() << 8;
    QTest::newRow((std::string("gemma3 ") + preset).c_str()) << QStringLiteral("gemma3") << p << QString() << 8;
  }
  // Separators between the chats: Qwen's <|endoftext|> (its pad token), and an EOS after each
  // (ConstantLengthDataset); with the demo, the EOS then the next chat's <|im_start|> shows every join.
  QTest::newRow("qwen3 <|endoftext|> between")
      << QStringLiteral("qwen3") << QStringLiteral("default") << QStringLiteral("<|endoftext|>") << 8;
  QTest::newRow("llama3 eos between") << QStringLiteral("llama3") << QStringLiteral("default")
                                      << QStringLiteral("<|end_of_text|>") << 8;
  QTest::newRow("demo eos between") << QStringLiteral("demo") << QStringLiteral("default") << QStringLiteral("</s>")
                                    << 8;
}

// Each chat as the preset prepares it (labels and truncation, before padding), concatenated into one
// row with labels = input_ids, no attention_mask and no position_ids: a hand-rolled concat.
void TestRoundTrip::naiveJoinIsPacked() {
  QFETCH(QString, tokenizer);
  QFETCH(QString, preset);
  QFETCH(QString, separator);
  QFETCH(int, examples);
  REQUIRE_TOKENIZER_CACHE(cached(tokenizer.toStdString()));
  const DatasetPipeline pipeline(*pipelineFor(tokenizer.toStdString()), parseCollatorSpec(preset.toStdString()));
  std::optional<int32_t> sep;
  if (!separator.isEmpty()) QVERIFY((sep = pipeline.tokenizer().tokenToId(separator.toStdString())));
  std::vector<int64_t> ids;
  for (const Conversation& c : readDataset(kChats)) {
    const CollatedExample ex = pipeline.collator().prepare(pipeline.encode(c));
    ids.insert(ids.end(), ex.ids.begin(), ex.ids.end());
    if (sep) ids.push_back(*sep);
  }
  Batch b;
  b.inputIds = IntGrid(1, int64_t(ids.size()));
  b.inputIds.values = ids;
  b.labels = b.inputIds;
  const LintReport r = lintBatch(b, contextFor(pipeline, std::nullopt));
  bool packed = false;
  for (const Finding& f : r.findings) packed = packed || f.rule == "packing-cross-attention";
  QVERIFY2(packed, ("no packing-cross-attention:" + describe(r)).c_str());

  // The examples lint saw (readDump: the boundaries the views and the loss use too).
  Batch read = b;
  QVERIFY(readDump(read, contextFor(pipeline, std::nullopt)).rolesRecovered);
  QCOMPARE(int(rowLayout(read, 0).examples.size()), examples);
}

void TestRoundTrip::multiTurnStaysOne_data() {
  QTest::addColumn<QString>("tokenizer");
  QTest::addColumn<QString>("templ");
  QTest::addColumn<bool>("withTemplate");
  for (const char* tok : {"demo", "qwen3", "llama3", "gemma3"})
    QTest::newRow(tok) << QString::fromLatin1(tok) << QString() << true;
  // Llama 2 joins the turns of one conversation with </s><s>[INST]: with its template that pair is a
  // turn join, not a separator; without it, the documented limit (the row looks packed).
  QTest::newRow("llama2 with its template") << QStringLiteral("llama2") << QStringLiteral("llama2") << true;
  QTest::newRow("llama2 without a template") << QStringLiteral("llama2") << QStringLiteral("llama2") << false;
}

// Each chat collated alone and read back as a dump is one example, however many turns it has.
void TestRoundTrip::multiTurnStaysOne() {
  QFETCH(QString, tokenizer);
  QFETCH(QString, templ);
  QFETCH(bool, withTemplate);
  REQUIRE_TOKENIZER_CACHE(cached(tokenizer.toStdString()));
  PipelineSpec ps;
  ps.tokenizerSpec = tokenizerSpecOf(tokenizer.toStdString());
  ps.templateSpec = templ.toStdString();
  const DatasetPipeline pipeline(ps);
  LintContext ctx = contextFor(pipeline, std::nullopt);
  if (!withTemplate) {
    ctx.chatTemplate = nullptr;
    ctx.render = templateVariables({}, nullptr, ctx.tokenizer.get());
  }
  int split = 0, multiTurn = 0;
  for (const Conversation& c : readDataset(kChats)) {
    Batch dump = pipeline.collateConversations({c});
    dump.meta.clear();
    dump.segments.clear();
    dump.padTokenId = dump.eosTokenId = dump.bosTokenId = std::nullopt;
    readDump(dump, ctx);
    const int examples = int(rowLayout(dump, 0).examples.size());
    int users = 0;
    for (const Message& m : c.messages) users += m.role == "user";
    multiTurn += users > 1;
    if (withTemplate) QVERIFY2(examples == 1, ("row " + std::to_string(c.rowIndex)).c_str());
    split += examples > 1;
  }
  QVERIFY(multiTurn >= 2);
  if (!withTemplate) QCOMPARE(split, multiTurn); // every multi-turn Llama 2 chat, and only those
}

QTEST_GUILESS_MAIN(TestRoundTrip)
#include "tst_round_trip.moc"
