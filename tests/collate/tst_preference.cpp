// Preference data (TRL prompt/chosen/rejected): the row shapes and their located errors, TRL's
// implicit-prompt extraction, and the two sequences as DPOTrainer builds them, each checked against
// an independent reference (the template and tokenizer called directly, as TRL calls them):
// prompt ids = tokenize(prompt rendered with the generation prompt), labels -100 exactly there,
// completion graded through the EOS TRL appends; stop-token-not-graded per side; the joint-tokens
// case of preference-prompt-mismatch on a real BPE tokenizer.
#include "core/collate/PreferencePairs.h"
#include "core/data/DatasetReader.h"
#include "core/lint/Lint.h"
#include "tests/TokenizerCacheRequired.h"

#include <QTest>
#include <cstdlib>
#include <filesystem>

using namespace maskscope;

namespace {

const std::string kData = MASKSCOPE_TEST_DATA_DIR "/preference/";

std::vector<int32_t> idsOf(const Tokenizer& tok, const std::string& text) { return tok.encode(text, {}).ids; }

bool fires(const LintReport& r, const std::string& rule, const std::string& inMessage = {}) {
  for (const Finding& f : r.findings)
    if (f.rule == rule && f.message.find(inMessage) != std::string::npos) return true;
  return false;
}

} // namespace

class TestPreference : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void shapes_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<bool>("plain");
    QTest::addColumn<bool>("implicitPrompt");
    QTest::addColumn<int>("row");
    QTest::addColumn<QString>("prompt"); // plain: the text; conversational: the last prompt message
    QTest::addColumn<QString>("chosen"); // plain: the text; conversational: the first chosen message
    QTest::newRow("conversational") << QStringLiteral("conversational.jsonl") << false << false << 1
                                    << QStringLiteral("Name a prime number.") << QStringLiteral("Seven.");
    QTest::newRow("plain") << QStringLiteral("plain.jsonl") << true << false << 0
                           << QStringLiteral("Question: what is two plus two?\nAnswer:") << QStringLiteral(" Four.");
    QTest::newRow("implicit conversational")
        << QStringLiteral("implicit_prompt.jsonl") << false << true << 0
        << QStringLiteral("What colour is the sky on a clear day?") << QStringLiteral("Blue.");
    // TRL's extract_prompt: the space before the first difference stays with the completions.
    QTest::newRow("implicit plain") << QStringLiteral("implicit_prompt.jsonl") << true << true << 1
                                    << QStringLiteral("Question: what is two plus two? Answer:")
                                    << QStringLiteral(" four.");
  }
  void shapes() {
    QFETCH(QString, file);
    QFETCH(bool, plain);
    QFETCH(bool, implicitPrompt);
    QFETCH(int, row);
    QFETCH(QString, prompt);
    QFETCH(QString, chosen);
    std::vector<RowError> errors;
    const auto rows = readPreferenceDataset(kData + file.toStdString(), &errors);
    QVERIFY(errors.empty());
    QVERIFY(isPreferenceDataset(kData + file.toStdString()));
    const PreferenceRow& p = rows.at(size_t(row));
    QCOMPARE(p.plainText, plain);
    QCOMPARE(p.implicitPrompt, implicitPrompt);
    if (plain) {
      QCOMPARE(QString::fromStdString(p.plainPrompt), prompt);
      QCOMPARE(QString::fromStdString(p.plainChosen), chosen);
    } else {
      QCOMPARE(QString::fromStdString(p.prompt.back().content), prompt);
      QCOMPARE(QString::fromStdString(p.chosen.front().content), chosen);
      QCOMPARE(p.side(false).promptMessageCount, int(p.prompt.size()));
    }
  }

  // Bad rows are skipped with their line and a reason naming the field; the good ones are read.
  void malformedRowsLocated() {
    std::vector<RowError> errors;
    const auto rows = readPreferenceDataset(kData + "malformed.jsonl", &errors);
    QCOMPARE(rows.size(), size_t(2));
    QCOMPARE(rows[1].sourceLine, 6L);
    QCOMPARE(errors.size(), size_t(4));
    const std::vector<std::pair<long, std::string>> expected = {{2, "all be strings or all be message lists"},
                                                                {3, "chosen[0] has no \"content\""},
                                                                {4, "share no prompt"},
                                                                {5, "invalid JSON"}};
    for (size_t i = 0; i < expected.size(); ++i) {
      QCOMPARE(errors[i].line, expected[i].first);
      QVERIFY2(errors[i].reason.find(expected[i].second) != std::string::npos, errors[i].reason.c_str());
    }
    QVERIFY(!isPreferenceDataset(kData + "no-such-file.jsonl"));
  }

  // The two sequences against the reference: prompt ids = tokenize(prompt rendered alone with the
  // generation prompt), then tokenize(rest of the full render), then EOS; labels -100 on the prompt.
  void sequencesAsDpo_data() {
    QTest::addColumn<QString>("file");
    QTest::newRow("conversational") << QStringLiteral("conversational.jsonl");
    QTest::newRow("plain") << QStringLiteral("plain.jsonl");
    QTest::newRow("implicit") << QStringLiteral("implicit_prompt.jsonl");
  }
  void sequencesAsDpo() {
    QFETCH(QString, file);
    PipelineSpec ps;
    ps.templateSpec = "chatml";
    DatasetPipeline p(ps);
    const Tokenizer& tok = p.tokenizer();
    const int64_t eos = p.collator().eosId().value();
    for (const PreferenceRow& row : readPreferenceDataset(kData + file.toStdString())) {
      const EncodedPreference pair = encodePreference(p, row);
      const PreferenceBatches b = collatePreference(p, {pair});
      for (bool chosenSide : {true, false}) {
        const Conversation c = row.side(chosenSide);
        std::string promptText = c.plainPrompt, full = c.plainPrompt + c.plainCompletion;
        if (!c.plainText) {
          RenderOptions ro = p.renderOptions();
          const std::vector<Message> prompt(c.messages.begin(), c.messages.begin() + c.promptMessageCount);
          ro.addGenerationPrompt = true;
          promptText = p.chatTemplate().render(prompt, ro).text;
          ro.addGenerationPrompt = false;
          full = p.chatTemplate().render(c.messages, ro).text;
          QVERIFY(full.starts_with(promptText)); // ChatML: the prompt is a prefix (no TRL cut)
        }
        std::vector<int64_t> expected;
        for (int32_t id : idsOf(tok, promptText)) expected.push_back(id);
        const size_t promptLen = expected.size();
        for (int32_t id : idsOf(tok, full.substr(promptText.size()))) expected.push_back(id);
        expected.push_back(eos);
        const Batch& batch = chosenSide ? b.chosen : b.rejected;
        QCOMPARE(batch.batchSize(), int64_t(1));
        for (size_t t = 0; t < expected.size(); ++t) {
          QCOMPARE(batch.inputIds.at(0, int64_t(t)), expected[t]);
          const int64_t label = batch.labels.at(0, int64_t(t));
          QCOMPARE(label, t < promptLen ? kIgnoreIndex : expected[t]); // completion graded incl. the EOS
        }
        QCOMPARE(batch.length(), int64_t(expected.size())); // one row: no padding
      }
    }
  }

  // stop-token-not-graded runs on each side: a collator whose pad is the EOS masks both closings
  // (findings name the file line and the side).
  void stopTokenPerSide() {
    DatasetLintOptions o;
    o.pipeline.collatorSpec = "buggy-pad-is-eos";
    const LintReport bad = lintPreferenceDataset(kData + "conversational.jsonl", o);
    QVERIFY(fires(bad, "stop-token-not-graded", "line 1 (chosen)"));
    QVERIFY(fires(bad, "stop-token-not-graded", "line 1 (rejected)"));
    QCOMPARE(bad.summary.rows, 2L);
    o.pipeline.collatorSpec = "default";
    const LintReport good = lintPreferenceDataset(kData + "conversational.jsonl", o);
    QVERIFY(!fires(good, "stop-token-not-graded"));
    QCOMPARE(good.summary.errors, 0L);
  }

  // With a byte-level BPE, "Hello wor" + "ld" and "Hello wor" + "k" tokenize the prompt's last word
  // differently as one text ("world" vs "work"); a prompt ending in a newline does not.
  void jointTokensMismatch_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<bool>("expectFire");
    QTest::newRow("reply continues the prompt's word") << QStringLiteral("joint_mismatch.jsonl") << true;
    QTest::newRow("prompt ends at a boundary") << QStringLiteral("joint_quiet.jsonl") << false;
  }
  void jointTokensMismatch() {
    QFETCH(QString, file);
    QFETCH(bool, expectFire);
    const std::string qwen = std::string(MASKSCOPE_TOKENIZER_CACHE) + "/qwen3";
    REQUIRE_TOKENIZER_CACHE(std::filesystem::exists(qwen + "/tokenizer.json"));
    DatasetLintOptions o;
    o.pipeline.tokenizerSpec = qwen;
    const LintReport r = lintPreferenceDataset(kData + file.toStdString(), o);
    QCOMPARE(fires(r, "preference-prompt-mismatch", "tokenized as one text"), expectFire);
  }
};

QTEST_GUILESS_MAIN(TestPreference)
#include "tst_preference.moc"
