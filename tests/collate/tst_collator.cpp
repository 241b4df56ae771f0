// Every collator preset (the registry, collatorPresets()) and the collator keys on tiny ChatML
// conversations with the demo tokenizer, against arrays worked out by hand: each preset's cases are
// its own file, tests/data/collate/presets/<preset>.json (a preset without one fails). Token ids of the demo vocabulary
// (resources/tokenizer/demo.vocab):
//   <pad>=0 <unk>=1 <s>=2 </s>=3 <|im_start|>=4 <|im_end|>=5 "\n"=16 (byte piece <0x0A>)
//   user=317 assistant=295 Why=756 A=3826 No=2166 !=3857 O=3844 k=3811
// X = user "Why", assistant "A":  <|im_start|> user \n Why <|im_end|> \n <|im_start|> assistant \n A <|im_end|> \n
//     = 4 317 16 756 5 16 4 295 16 3826 5 16 (12 tokens; reply = "A" + its closing <|im_end|> = positions 9, 10)
// Y = user "Why", assistant "No!": the same with No ! in place of A (13 tokens; reply = positions 9..11)
// Z = X followed by user "Ok", assistant "No!" (26 tokens; replies at 9..10 and 22..24)
// ChatML's eos_token is <|im_end|> (5): the collator's EOS (pad_token=eos, packing separators).
#include "core/collate/DatasetPipeline.h"
#include "core/data/DatasetReader.h"
#include "core/tokenizer/Tokenizer.h"
#include "core/util/Error.h"
#include "core/util/FileReading.h"
#include "core/util/JsonParse.h"

#include <QtTest>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

using namespace maskscope;

using Ids = std::vector<int64_t>;
using Rows = std::vector<Ids>;
Q_DECLARE_METATYPE(Rows)

namespace {

constexpr int64_t I = kIgnoreIndex;

Ids cat(std::initializer_list<Ids> parts) {
  Ids out;
  for (const Ids& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}
Ids rep(int64_t v, int n) { return Ids(size_t(n), v); }
Ids range(int64_t from, int64_t to) { // [from, to)
  Ids out;
  for (int64_t v = from; v < to; ++v) out.push_back(v);
  return out;
}

const Ids X = {4, 317, 16, 756, 5, 16, 4, 295, 16, 3826, 5, 16};
const Ids Y = {4, 317, 16, 756, 5, 16, 4, 295, 16, 2166, 3857, 5, 16};
const Ids LX = cat({rep(I, 9), {3826, 5, I}});       // assistant-only labels of X
const Ids LY = cat({rep(I, 9), {2166, 3857, 5, I}}); // assistant-only labels of Y

Conversation chat(std::vector<std::pair<std::string, std::string>> messages, int promptMessages = -1, long row = 0) {
  Conversation c;
  for (auto& [role, content] : messages) c.messages.push_back({role, content, nullptr});
  c.promptMessageCount = promptMessages;
  c.rowIndex = row;
  return c;
}

std::vector<Conversation> conversations(const QString& which) {
  auto x = [](int pc, long row) { return chat({{"user", "Why"}, {"assistant", "A"}}, pc, row); };
  auto y = [](int pc, long row) { return chat({{"user", "Why"}, {"assistant", "No!"}}, pc, row); };
  if (which == QLatin1String("XY")) return {x(-1, 0), y(-1, 1)};
  if (which == QLatin1String("XY-prompt-completion")) return {x(1, 0), y(1, 1)};
  if (which == QLatin1String("Z"))
    return {chat({{"user", "Why"}, {"assistant", "A"}, {"user", "Ok"}, {"assistant", "No!"}})};
  qFatal("unknown conversation set");
}

DatasetPipeline pipelineFor(const std::string& collator, const std::string& templ = "chatml") {
  PipelineSpec ps;
  ps.tokenizerSpec = "builtin:demo";
  ps.templateSpec = templ;
  ps.collatorSpec = collator;
  return DatasetPipeline(ps);
}

Rows rowsOf(const IntGrid& g) {
  Rows out(size_t(g.rows));
  for (int64_t r = 0; r < g.rows; ++r)
    for (int64_t c = 0; c < g.cols; ++c) out[size_t(r)].push_back(g.at(r, c));
  return out;
}

QString show(const Rows& rows) {
  QString s;
  for (const Ids& r : rows) {
    s += QLatin1String("[");
    for (size_t i = 0; i < r.size(); ++i) s += (i ? QLatin1String(" ") : QLatin1String("")) + QString::number(r[i]);
    s += QLatin1String("]\n");
  }
  return s;
}

const std::string kPresetCases = MASKSCOPE_TEST_DATA_DIR "/collate/presets/";

Rows rowsOf(const nlohmann::json& rows) {
  Rows out;
  for (const auto& r : rows) out.push_back(r.get<Ids>());
  return out;
}

#define COMPARE_ROWS(actual, expected)                                                                                 \
  do {                                                                                                                 \
    const Rows a_ = (actual), e_ = (expected);                                                                         \
    if (a_ != e_)                                                                                                      \
      QFAIL(qPrintable(                                                                                                \
          QStringLiteral("%1\n actual:\n%2 expected:\n%3").arg(QLatin1String(#actual), show(a_), show(e_))));          \
  } while (0)

} // namespace

class TestCollator : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void tokensAreWhatTheCommentsSay();
  void presets_data();
  void presets();
  void keys_data();
  void keys();
  void collatorJsonFile();
  void plainPromptCompletion_data();
  void plainPromptCompletion();
  void duplicateBos();
  void oversizedBatchRefused();
  void hfLmMatchesDataCollatorForLanguageModeling_data();
  void hfLmMatchesDataCollatorForLanguageModeling();
  void truncationCutsReply();
  void truncationRemovesWholeReply();
  void packedSegmentsAndMeta();
  void everyPresetOnTheDemo();
  void presetsSayWhatTheyMirror();
  void everyCaseFileNamesAPreset();
  void presetTableInDocs();
  void badSpecs_data();
  void badSpecs();
};

void TestCollator::tokensAreWhatTheCommentsSay() {
  // The premise of every expectation below: the rendered and tokenized conversations.
  DatasetPipeline p = pipelineFor("default");
  auto xy = conversations(QStringLiteral("XY"));
  TokenizedConversation x = p.encode(xy[0]), y = p.encode(xy[1]);
  QCOMPARE(x.text, std::string("<|im_start|>user\nWhy<|im_end|>\n<|im_start|>assistant\nA<|im_end|>\n"));
  Ids xi, yi;
  for (const auto& t : x.tokens) xi.push_back(t.id);
  for (const auto& t : y.tokens) yi.push_back(t.id);
  QVERIFY(xi == X);
  QVERIFY(yi == Y);
  QCOMPARE(p.collator().padId(), int64_t(0));
  QCOMPARE(p.collator().eosId().value_or(-1), int64_t(5));
  // The same reply positions through {% generation %} spans.
  DatasetPipeline g = pipelineFor("default", "chatml-assistant-mask");
  TokenizedConversation gx = g.encode(xy[0]);
  QVERIFY(gx.generationSpans.has_value());
  for (size_t i = 0; i < gx.tokens.size(); ++i) QCOMPARE(gx.tokens[i].inGeneration, i == 9 || i == 10);
}

// One row per case of each registered preset, read from the preset's own case file.
void TestCollator::presets_data() {
  QTest::addColumn<QString>("collator");
  QTest::addColumn<QString>("conversations");
  QTest::addColumn<QString>("templ");
  QTest::addColumn<Rows>("ids");
  QTest::addColumn<Rows>("attention");
  QTest::addColumn<Rows>("labels");
  QTest::addColumn<Rows>("positions");
  QTest::addColumn<QString>("problem"); // a preset without (usable) hand-worked cases
  for (const CollatorPreset& preset : collatorPresets()) {
    const std::string file = kPresetCases + preset.name + ".json";
    nlohmann::json cases;
    std::string problem;
    try {
      cases = parseJsonOrThrow(readFileCapped(file, int64_t(1) << 20), {file})["cases"];
      if (!cases.is_array() || cases.empty()) problem = file + ": no \"cases\"";
    } catch (const Error& e) {
      problem = std::string(e.what()) + " (each preset needs its hand-worked cases there)";
    }
    if (!problem.empty()) {
      QTest::newRow(preset.name.c_str()) << QString() << QString() << QString() << Rows{} << Rows{} << Rows{} << Rows{}
                                         << QString::fromStdString(problem);
      continue;
    }
    for (const auto& c : cases) {
      const std::string collator = c["collator"].get<std::string>();
      const bool ofThisPreset = collator == preset.name || collator.starts_with(preset.name + ",");
      QTest::newRow((preset.name + "/" + c["name"].get<std::string>()).c_str())
          << QString::fromStdString(collator) << QString::fromStdString(c["conversations"].get<std::string>())
          << QString::fromStdString(c["template"].get<std::string>()) << rowsOf(c["input_ids"])
          << rowsOf(c["attention_mask"]) << rowsOf(c["labels"]) << rowsOf(c["position_ids"])
          << (ofThisPreset ? QString() : QString::fromStdString(file + ": a case of collator " + collator));
    }
  }
}

// The collator keys (on top of a preset or of default), hand-worked the same way.
void TestCollator::keys_data() {
  QTest::addColumn<QString>("collator");
  QTest::addColumn<QString>("conversations");
  QTest::addColumn<QString>("templ");
  QTest::addColumn<Rows>("ids");
  QTest::addColumn<Rows>("attention");
  QTest::addColumn<Rows>("labels");
  QTest::addColumn<Rows>("positions");
  const QString XY = QStringLiteral("XY"), chatml = QStringLiteral("chatml");
  const Rows idsXY = {cat({X, {0}}), Y};
  const Rows attnXY = {cat({rep(1, 12), {0}}), rep(1, 13)};
  const Rows posXY = {range(0, 13), range(0, 13)};

  QTest::newRow("without-closing-token") << QStringLiteral("default,grade_closing_token=false") << XY << chatml << idsXY
                                         << attnXY
                                         << Rows{cat({rep(I, 9), {3826, I, I, I}}),
                                                 cat({rep(I, 9), {2166, 3857, I, I}})}
                                         << posXY;
  // Correct left padding: cumsum(mask) - 1 with the pads at 1, as transformers' generate().
  QTest::newRow("left-padding") << QStringLiteral("default,padding_side=left") << XY << chatml << Rows{cat({{0}, X}), Y}
                                << Rows{cat({{0}, rep(1, 12)}), rep(1, 13)} << Rows{cat({{I}, LX}), LY}
                                << Rows{cat({{1}, range(0, 12)}), range(0, 13)};
  // add_bos: the tokenizer's BOS (<s> = 2) on top of the template's text.
  QTest::newRow("add-bos") << QStringLiteral("default,add_bos=true") << XY << chatml
                           << Rows{cat({{2}, X, {0}}), cat({{2}, Y})} << Rows{cat({rep(1, 13), {0}}), rep(1, 14)}
                           << Rows{cat({{I}, LX, {I}}), cat({{I}, LY})} << Rows{range(0, 14), range(0, 14)};
  QTest::newRow("hf-lm-add-bos") << QStringLiteral("hf-lm,add_bos=true") << XY << chatml
                                 << Rows{cat({{2}, X, {0}}), cat({{2}, Y})} << Rows{cat({rep(1, 13), {0}}), rep(1, 14)}
                                 << Rows{cat({{2}, X, {I}}), cat({{2}, Y})} << Rows{range(0, 14), range(0, 14)};
  QTest::newRow("pad-to-multiple-of-8") << QStringLiteral("default,pad_to=multiple_of:8") << XY << chatml
                                        << Rows{cat({X, rep(0, 4)}), cat({Y, rep(0, 3)})}
                                        << Rows{cat({rep(1, 12), rep(0, 4)}), cat({rep(1, 13), rep(0, 3)})}
                                        << Rows{cat({LX, rep(I, 4)}), cat({LY, rep(I, 3)})}
                                        << Rows{range(0, 16), range(0, 16)};
  QTest::newRow("truncation-keep-end") << QStringLiteral("default,truncation=keep_end,max_length=4") << XY << chatml
                                       << Rows{{16, 3826, 5, 16}, {2166, 3857, 5, 16}} << Rows{rep(1, 4), rep(1, 4)}
                                       << Rows{{I, 3826, 5, I}, {2166, 3857, 5, I}} << Rows{range(0, 4), range(0, 4)};
  QTest::newRow("truncation-keep-start-removes-reply")
      << QStringLiteral("default,truncation=keep_start,max_length=8") << XY << chatml
      << Rows{{4, 317, 16, 756, 5, 16, 4, 295}, {4, 317, 16, 756, 5, 16, 4, 295}} << Rows{rep(1, 8), rep(1, 8)}
      << Rows{rep(I, 8), rep(I, 8)} << Rows{range(0, 8), range(0, 8)};
  QTest::newRow("pad-token-by-string") << QStringLiteral("default,pad_token=<unk>") << XY << chatml
                                       << Rows{cat({X, {1}}), Y} << attnXY << Rows{cat({LX, {I}}), LY} << posXY;
  QTest::newRow("pad-token-by-id") << QStringLiteral("default,pad_token=3") << XY << chatml << Rows{cat({X, {3}}), Y}
                                   << attnXY << Rows{cat({LX, {I}}), LY} << posXY;
  QTest::newRow("inline-all-labels-all-ones")
      << QStringLiteral("labels=all,attention=all_ones") << XY << chatml << idsXY << Rows{rep(1, 13), rep(1, 13)}
      << Rows{cat({X, {0}}), Y} << posXY;
}

namespace {

void checkCollated() {
  QFETCH(QString, collator);
  QFETCH(QString, conversations);
  QFETCH(QString, templ);
  QFETCH(Rows, ids);
  QFETCH(Rows, attention);
  QFETCH(Rows, labels);
  QFETCH(Rows, positions);
  DatasetPipeline p = pipelineFor(collator.toStdString(), templ.toStdString());
  Batch b = p.collateConversations(::conversations(conversations));
  COMPARE_ROWS(rowsOf(b.inputIds), ids);
  COMPARE_ROWS(rowsOf(b.attentionMask), attention);
  COMPARE_ROWS(rowsOf(b.labels), labels);
  COMPARE_ROWS(rowsOf(b.positionIds), positions);
  QCOMPARE(int64_t(b.meta.size()), b.batchSize());
  for (const auto& m : b.meta) QCOMPARE(int64_t(m.size()), b.length());
}

} // namespace

void TestCollator::presets() {
  QFETCH(QString, problem);
  if (!problem.isEmpty()) QFAIL(qPrintable(problem));
  checkCollated();
}

void TestCollator::keys() { checkCollated(); }

void TestCollator::collatorJsonFile() {
  const std::string path = MASKSCOPE_TEST_DATA_DIR "/collate/left_multiple_of_7.json";
  DatasetPipeline p = pipelineFor(path);
  Batch b = p.collateConversations(conversations(QStringLiteral("XY")));
  // 13 rounds up to 14: two pads on the left of X, one on the left of Y.
  COMPARE_ROWS(rowsOf(b.inputIds), (Rows{cat({{0, 0}, X}), cat({{0}, Y})}));
  COMPARE_ROWS(rowsOf(b.labels), (Rows{cat({{I, I}, X}), cat({{I}, Y})}));
  COMPARE_ROWS(rowsOf(b.positionIds), (Rows{cat({{1, 1}, range(0, 12)}), cat({{1}, range(0, 13)})}));
}

void TestCollator::plainPromptCompletion_data() {
  // TRL on plain-text prompt/completion: text = prompt + completion + eos_token (add_eos), the
  // completion mask starting at len(tokenize(prompt)). "WhyA<|im_end|>" = Why A <|im_end|> = 756 3826 5.
  QTest::addColumn<QString>("collator");
  QTest::addColumn<Rows>("labels");
  QTest::newRow("trl-completion-only") << QStringLiteral("trl-completion-only") << Rows{{I, 3826, 5}};
  QTest::newRow("assistant-only") << QStringLiteral("default") << Rows{{I, 3826, 5}};
  QTest::newRow("hf-lm") << QStringLiteral("hf-lm") << Rows{{756, 3826, 5}};
  QTest::newRow("without-closing-token") << QStringLiteral("trl-completion-only,grade_closing_token=false")
                                         << Rows{{I, 3826, I}};
}

void TestCollator::plainPromptCompletion() {
  QFETCH(QString, collator);
  QFETCH(Rows, labels);
  Conversation c;
  c.plainText = true;
  c.plainPrompt = "Why";
  c.plainCompletion = "A";
  c.promptMessageCount = 1;
  c.messages = {{"user", "Why", nullptr}, {"assistant", "A", nullptr}};
  DatasetPipeline p = pipelineFor(collator.toStdString());
  TokenizedConversation t = p.encode(c);
  QCOMPARE(t.text, std::string("WhyA<|im_end|>"));
  QCOMPARE(t.completionStart, 1);
  Batch b = p.collateConversations({c});
  COMPARE_ROWS(rowsOf(b.inputIds), (Rows{{756, 3826, 5}}));
  COMPARE_ROWS(rowsOf(b.labels), labels);
}

void TestCollator::duplicateBos() {
  // llama2's template writes bos_token itself ("<s>[INST] Why [/INST] A </s>"); add_bos puts the
  // tokenizer's <s> (2) on top: the duplicate-BOS trap of tokenizer(apply_chat_template(..., tokenize=False)).
  const Conversation x = conversations(QStringLiteral("XY"))[0];
  Batch once = pipelineFor("default", "llama2").collateConversations({x});
  Batch twice = pipelineFor("default,add_bos=true", "llama2").collateConversations({x});
  QCOMPARE(once.inputIds.at(0, 0), int64_t(2));
  QVERIFY(once.inputIds.at(0, 1) != 2);
  QCOMPARE(twice.inputIds.at(0, 0), int64_t(2));
  QCOMPARE(twice.inputIds.at(0, 1), int64_t(2));
  QCOMPARE(twice.length(), once.length() + 1);
  // The reply " A" and its closing </s> (3) are graded either way; the BOS never is.
  const std::optional<int32_t> spaceA = pipelineFor("default").tokenizer().tokenToId("\u2581A"); // "▁A"
  QVERIFY(spaceA.has_value());
  const int64_t T = once.length();
  QCOMPARE(once.inputIds.at(0, T - 1), int64_t(3));
  QCOMPARE(once.labels.at(0, T - 1), int64_t(3));
  QCOMPARE(once.labels.at(0, 0), I);
  QCOMPARE(twice.labels.at(0, 1), I);
  int64_t graded = 0;
  for (int64_t v : twice.labels.values) graded += v != I;
  QVERIFY(graded >= 2);
  QVERIFY(std::count(once.inputIds.values.begin(), once.inputIds.values.end(), int64_t(*spaceA)) == 1);
}

void TestCollator::oversizedBatchRefused() {
  // max_length padding of a million positions per row is refused with a message, not an allocation.
  DatasetPipeline p = pipelineFor("default,pad_to=max_length,max_length=1048576");
  std::vector<Conversation> rows(64, conversations(QStringLiteral("XY"))[0]);
  QVERIFY_THROWS_EXCEPTION(Error, p.collateConversations(rows));
}

void TestCollator::hfLmMatchesDataCollatorForLanguageModeling_data() {
  QTest::addColumn<QString>("collator");
  QTest::newRow("pad-is-pad") << QStringLiteral("hf-lm");
  QTest::newRow("pad-is-eos") << QStringLiteral("hf-lm,pad_token=eos");
  QTest::newRow("left-padding") << QStringLiteral("hf-lm,padding_side=left");
  QTest::newRow("max-length") << QStringLiteral("hf-lm,pad_to=max_length,max_length=600,truncation=keep_start");
}

void TestCollator::hfLmMatchesDataCollatorForLanguageModeling() {
  // The rule, applied to the collator's own input_ids: labels = input_ids.clone();
  // labels[labels == pad_token_id] = -100. Attention: 0 exactly on the pads it added.
  QFETCH(QString, collator);
  DatasetPipeline p = pipelineFor(collator.toStdString());
  std::vector<Conversation> rows = readDataset("builtin:demo", nullptr, 10);
  QCOMPARE(rows.size(), size_t(10));
  Batch b = p.collateConversations(rows);
  const int64_t pad = p.collator().padId();
  int64_t masked = 0;
  for (int64_t r = 0; r < b.batchSize(); ++r)
    for (int64_t t = 0; t < b.length(); ++t) {
      const int64_t id = b.inputIds.at(r, t);
      QCOMPARE(b.labels.at(r, t), id == pad ? kIgnoreIndex : id);
      masked += id == pad && b.meta[size_t(r)][size_t(t)].kind != PositionKind::Padding;
      QCOMPARE(b.attentionMask.at(r, t) == 0, b.meta[size_t(r)][size_t(t)].kind == PositionKind::Padding);
    }
  // With pad == eos, real stop tokens are masked too (the bug the preset shows); otherwise none are.
  QCOMPARE(masked > 0, collator.contains(QLatin1String("eos")));
}

void TestCollator::truncationCutsReply() {
  DatasetPipeline p = pipelineFor("default,truncation=keep_start,max_length=10");
  TokenizedConversation x = p.encode(conversations(QStringLiteral("XY"))[0]);
  CollatedExample ex = p.collator().prepare(x);
  QVERIFY(ex.truncated);
  QCOMPARE(ex.repliesCut, 1);
  QVERIFY(ex.ids == Ids(X.begin(), X.begin() + 10));
  // "A" stays graded but its reply lost the closing <|im_end|>.
  QCOMPARE(int(ex.graded[9]), 1);
  QVERIFY(ex.meta[9].reply);
  QVERIFY(ex.meta[9].replyTruncated);
  for (int i = 0; i < 9; ++i) QVERIFY(!ex.meta[size_t(i)].replyTruncated);
  // Not truncated: nothing flagged.
  DatasetPipeline q = pipelineFor("default,truncation=keep_start,max_length=12");
  CollatedExample whole = q.collator().prepare(x);
  QVERIFY(!whole.truncated);
  QCOMPARE(whole.repliesCut, 0);
  QVERIFY(whole.meta[10].closesReply);
}

void TestCollator::truncationRemovesWholeReply() {
  DatasetPipeline p = pipelineFor("default,truncation=keep_start,max_length=8");
  Batch b = p.collateConversations(conversations(QStringLiteral("XY")));
  for (int64_t v : b.labels.values) QCOMPARE(v, kIgnoreIndex); // no graded tokens at all
  CollatedExample ex = p.collator().prepare(p.encode(conversations(QStringLiteral("XY"))[0]));
  QCOMPARE(ex.repliesCut, 1);
  for (const auto& m : ex.meta) QVERIFY(!m.reply);
}

void TestCollator::packedSegmentsAndMeta() {
  DatasetPipeline p = pipelineFor("axolotl-packed,max_length=32");
  Batch b = p.collateConversations(conversations(QStringLiteral("XY")));
  QCOMPARE(b.segments.size(), size_t(1));
  QCOMPARE(b.segments[0].size(), size_t(2));
  QCOMPARE(b.segments[0][0].begin, int64_t(0));
  QCOMPARE(b.segments[0][0].end, int64_t(12));
  QCOMPARE(b.segments[0][0].sourceRow, 0L);
  QCOMPARE(b.segments[0][1].begin, int64_t(12));
  QCOMPARE(b.segments[0][1].end, int64_t(25));
  QCOMPARE(b.segments[0][1].sourceRow, 1L);
  QCOMPARE(b.meta[0][25].kind, PositionKind::Padding);
  QCOMPARE(b.meta[0][9].kind, PositionKind::Assistant);
  QCOMPARE(b.meta[0][3].kind, PositionKind::User);
  QVERIFY(b.meta[0][10].closesReply);
  QVERIFY(b.meta[0][23].closesReply);
  QCOMPARE(b.padTokenId.value_or(-1), int64_t(0));
  QCOMPARE(b.eosTokenId.value_or(-1), int64_t(5));
  // Unpacked batches carry no segments.
  Batch plain = pipelineFor("default").collateConversations(conversations(QStringLiteral("XY")));
  for (const auto& s : plain.segments) QVERIFY(s.empty());
  QCOMPARE(plain.meta[0][12].kind, PositionKind::Padding);
}

void TestCollator::everyPresetOnTheDemo() {
  std::vector<Conversation> rows = readDataset("builtin:demo", nullptr, 6);
  for (const CollatorPreset& preset : collatorPresets()) {
    DatasetPipeline p = pipelineFor(preset.name);
    Batch b = p.collateConversations(rows);
    QVERIFY2(b.batchSize() > 0, preset.name.c_str());
    QVERIFY(b.attentionMask.sameShape(b.inputIds) && b.labels.sameShape(b.inputIds) &&
            b.positionIds.sameShape(b.inputIds));
    int64_t graded = 0;
    for (int64_t v : b.labels.values) graded += v != kIgnoreIndex;
    QVERIFY2(graded > 0, preset.name.c_str());
  }
}

void TestCollator::presetsSayWhatTheyMirror() {
  QStringList names;
  for (const CollatorPreset& p : collatorPresets()) {
    QVERIFY2(p.mirrors.size() > 20, p.name.c_str());
    QVERIFY2(!names.contains(QString::fromStdString(p.name)), p.name.c_str());
    names << QString::fromStdString(p.name);
    QCOMPARE(parseCollatorSpec(p.name).name, p.name);
    QCOMPARE(p.buggy, p.name.starts_with("buggy-") || p.name == "naive-packed");
  }
  CollatorSpec s = parseCollatorSpec("buggy-max-length-all-ones,max_length=64");
  QCOMPARE(s.maxLength, 64);
  QCOMPARE(s.attention, AttentionMode::AllOnes);
  QCOMPARE(s.labels, LabelMode::All);
}

// A case file whose preset is gone from the registry fails: removing a preset removes its cases.
void TestCollator::everyCaseFileNamesAPreset() {
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kPresetCases)) {
    const std::string name = entry.path().stem().string();
    const bool registered = std::any_of(collatorPresets().begin(), collatorPresets().end(),
                                        [&](const CollatorPreset& p) { return p.name == name; });
    QVERIFY2(registered, (entry.path().string() + ": no collator preset of that name").c_str());
    const auto j = parseJsonOrThrow(readFileCapped(entry.path().string()), {entry.path().string()});
    QCOMPARE(j["preset"].get<std::string>(), name);
    ++files;
  }
  QCOMPARE(files, int(collatorPresets().size()));
}

// docs/cli.md's preset table (### Presets) lists the registry: every preset in order, "bug" exactly
// for the buggy ones, and the settings each applies on top of default.
void TestCollator::presetTableInDocs() {
  std::ifstream in(MASKSCOPE_SOURCE_DIR "/docs/cli.md");
  std::string line;
  while (std::getline(in, line) && line != "| preset | kind | what it does | settings on top of `default` |") {
  }
  QVERIFY2(in, "docs/cli.md has no preset table");
  std::getline(in, line); // | --- | ...
  for (const CollatorPreset& p : collatorPresets()) {
    QVERIFY2(std::getline(in, line), ("docs/cli.md's preset table ends before " + p.name).c_str());
    const std::string start = "| `" + p.name + "` | " + (p.buggy ? "bug " : "") + "| ";
    const std::string end = p.settings.empty() ? " | |" : " | `" + p.settings + "` |";
    QVERIFY2(line.starts_with(start) && line.ends_with(end),
             ("docs/cli.md's preset table: expected a row " + start + "... " + end + ", found " + line).c_str());
  }
  QVERIFY2(!std::getline(in, line) || !line.starts_with("|"), ("docs/cli.md lists a preset too many: " + line).c_str());
}

void TestCollator::badSpecs_data() {
  QTest::addColumn<QString>("spec");
  QTest::addColumn<QString>("mentions");
  QTest::newRow("unknown-preset") << QStringLiteral("trl-everything") << QStringLiteral("unknown collator preset");
  QTest::newRow("unknown-key") << QStringLiteral("default,colour=blue") << QStringLiteral("colour");
  QTest::newRow("bad-value") << QStringLiteral("labels=some") << QStringLiteral("labels");
  QTest::newRow("bad-integer") << QStringLiteral("max_length=abc") << QStringLiteral("max_length");
  QTest::newRow("not-key-value") << QStringLiteral("default,right") << QStringLiteral("key=value");
  QTest::newRow("missing-file") << QStringLiteral("/nonexistent/collator.json") << QStringLiteral("collator.json");
}

void TestCollator::badSpecs() {
  QFETCH(QString, spec);
  QFETCH(QString, mentions);
  try {
    parseCollatorSpec(spec.toStdString());
    QFAIL("no error");
  } catch (const Error& e) {
    QVERIFY2(QString::fromStdString(std::string(e.what())).contains(mentions), e.what());
  }
}

QTEST_GUILESS_MAIN(TestCollator)
#include "tst_collator.moc"
