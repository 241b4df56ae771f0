// A batch dump opened with a tokenizer that cannot have made it: core's verdict (tokenizerFit), the
// app's question (the ids stay undecoded until a tokenizer that fits is chosen), the CLI's note, and
// the lint findings the app shows for a dump = `maskscope lint DUMP [--tokenizer T] --json`.
// Dumps: tests/data/ui/*.json (tools/ui-fixtures/make_dumps.sh); tokenizers: the real cache.
#include "../TokenizerCacheRequired.h"
#include "core/batchio/BatchLoader.h"
#include "core/commands/LintCommand.h"
#include "core/lint/TokenizerFit.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/Session.h"
#include "ui/views/lint/LintView.h"
#include "ui/views/tokens/TokenStripView.h"
#include "ui/widgets/TokenizerChoiceDialog.h"

#include <QAction>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QListWidget>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <nlohmann/json.hpp>
#include <sstream>

using namespace maskscope;

namespace {

QString dataFile(const QString& relative) { return QStringLiteral(MASKSCOPE_TEST_DATA_DIR "/") + relative; }
QString cached(const QString& name) { return QStringLiteral(MASKSCOPE_TOKENIZER_CACHE "/") + name; }

// MASKSCOPE_TEST_SCREENSHOTS=DIR: the window as the test left it, saved as DIR/NAME.png to look at.
void saveScreenshot(QWidget& w, const QString& name) {
  const QString dir = qEnvironmentVariable("MASKSCOPE_TEST_SCREENSHOTS");
  if (!dir.isEmpty()) w.grab().save(dir + QStringLiteral("/") + name + QStringLiteral(".png"));
}

// One finding as both sides print it.
QString line(const std::string& rule, const std::string& severity, const nlohmann::json& row,
             const nlohmann::json& position, const std::string& message) {
  return QStringLiteral("%1 %2 row=%3 pos=%4 %5")
      .arg(QString::fromStdString(rule), QString::fromStdString(severity), QString::fromStdString(row.dump()),
           QString::fromStdString(position.dump()), QString::fromStdString(message));
}

QStringList appFindings(const LintReport& r) {
  QStringList out;
  for (const Finding& f : r.findings)
    out << line(f.rule, severityName(f.severity), f.row ? nlohmann::json(*f.row) : nlohmann::json(),
                f.position ? nlohmann::json(*f.position) : nlohmann::json(), f.message);
  return out;
}

// `maskscope lint DUMP [--tokenizer T] --json`, run as the CLI runs it; err receives its notes.
QStringList cliFindings(const QString& dump, const QString& tokenizer, std::string* err = nullptr) {
  LintArgs a;
  a.input = dump.toStdString();
  a.tokenizerSpec = tokenizer.toStdString();
  std::ostringstream out, errs;
  CommandIO io{out, errs, true, false};
  runCommand(io, [&] { return runLint(a, io); });
  if (err) *err = errs.str();
  QStringList lines;
  const nlohmann::json j = nlohmann::json::parse(out.str());
  for (const auto& f : j.at("findings"))
    lines << line(f.at("rule"), f.at("severity"), f.at("row"), f.at("position"), f.at("message"));
  return lines;
}

// A cache with the real qwen3 and llama3 folders (or those named) linked in, as the picker and the
// dialog read it.
struct FakeCache {
  QTemporaryDir dir;
  QByteArray oldCache = qgetenv("XDG_CACHE_HOME");
  explicit FakeCache(std::initializer_list<const char*> names = {"qwen3", "llama3"}) {
    QDir().mkpath(dir.filePath(QStringLiteral("maskscope/tokenizers")));
    for (const char* name : names)
      QFile::link(cached(QString::fromLatin1(name)),
                  dir.filePath(QStringLiteral("maskscope/tokenizers/") + QString::fromLatin1(name)));
    qputenv("XDG_CACHE_HOME", dir.path().toUtf8());
    qputenv("HF_HUB_CACHE", dir.filePath(QStringLiteral("no-hub")).toUtf8());
  }
  ~FakeCache() {
    qputenv("XDG_CACHE_HOME", oldCache);
    qunsetenv("HF_HUB_CACHE");
  }
  QString spec(const char* name) const {
    return dir.filePath(QStringLiteral("maskscope/tokenizers/") + QString::fromLatin1(name));
  }
};

} // namespace

class TestDumpTokenizer : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    REQUIRE_TOKENIZER_CACHE(QFileInfo::exists(cached(QStringLiteral("qwen3/tokenizer.json"))) &&
                            QFileInfo::exists(cached(QStringLiteral("llama3/tokenizer.json"))));
  }

  // core's verdict: the vocabulary must hold every id, the dump's pad/EOS/BOS must be special tokens.
  void fitOfTokenizers_data() {
    QTest::addColumn<QString>("dump");
    QTest::addColumn<QString>("tokenizer");
    QTest::addColumn<bool>("fits");
    QTest::addColumn<QString>("reason");
    QTest::newRow("qwen3-dump-qwen3") << "ui/qwen3-batch.json" << cached(QStringLiteral("qwen3")) << true << "";
    QTest::newRow("qwen3-dump-demo") << "ui/qwen3-batch.json"
                                     << "builtin:demo" << false << "past its vocabulary";
    QTest::newRow("qwen3-dump-llama3") << "ui/qwen3-batch.json" << cached(QStringLiteral("llama3")) << false
                                       << "past its vocabulary";
    QTest::newRow("llama3-dump-llama3") << "ui/llama3-hf-lm.json" << cached(QStringLiteral("llama3")) << true << "";
    QTest::newRow("llama3-dump-qwen3") << "ui/llama3-hf-lm.json" << cached(QStringLiteral("qwen3")) << false
                                       << "not a special token";
    QTest::newRow("demo-ids-demo") << "ui/sliding_batch.json"
                                   << "builtin:demo" << true << "";
  }
  void fitOfTokenizers() {
    QFETCH(QString, dump);
    QFETCH(QString, tokenizer);
    QFETCH(bool, fits);
    QFETCH(QString, reason);
    const Batch b = loadBatchDump(dataFile(dump).toStdString());
    const auto tok = loadTokenizer(tokenizer.toStdString());
    const TokenizerFit fit = tokenizerFit(b, *tok);
    QVERIFY2(fit.fits == fits, fit.describe().c_str());
    QVERIFY2(QString::fromStdString(fit.describe()).contains(reason), fit.describe().c_str());
  }

  // Opening a Qwen3 dump while builtin:demo is the tokenizer: nothing is decoded with it, the window
  // asks, qwen3 is offered first (llama3 and the demo listed as not fitting, with why), and choosing
  // it decodes the ids.
  void dumpAsksForItsTokenizer() {
    FakeCache cache;
    Session s;
    QVERIFY(s.openDataset(QStringLiteral("builtin:demo")));
    MainWindow w(&s);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(w.openPath(dataFile(QStringLiteral("ui/qwen3-batch.json"))));
    QVERIFY(s.needsDumpTokenizer());
    QCOMPARE(s.tokenText(151644), QStringLiteral("#151644")); // <|im_start|> in Qwen3; never a demo token
    QCOMPARE(s.tokenText(7), QStringLiteral("#7"));           // inside the demo's vocabulary, still not decoded
    QVERIFY(w.summaryLabel()->text().contains(QStringLiteral("undecoded")));
    QTRY_VERIFY(w.tokenizerDialog() && w.tokenizerDialog()->isVisible());
    TokenizerChoiceDialog* d = w.tokenizerDialog();
    QVERIFY2(d->explanationText().contains(QStringLiteral("past its vocabulary")), qPrintable(d->explanationText()));
    QTRY_VERIFY_WITH_TIMEOUT(!d->ranking(), 120000); // loads every cached tokenizer
    QVERIFY(!d->ranked().empty());
    QCOMPARE(QString::fromStdString(d->ranked().front().spec), cache.spec("qwen3"));
    QVERIFY(d->ranked().front().fit.fits);
    for (const TokenizerCandidate& c : d->ranked())
      if (c.spec == "builtin:demo" || c.spec == cache.spec("llama3").toStdString()) {
        QVERIFY(!c.fit.fits);
        QVERIFY(c.fit.describe().find("past its vocabulary") != std::string::npos);
      }
    // Undecided, the lint view reads the dump as `maskscope lint DUMP` without --tokenizer does.
    QTRY_VERIFY_WITH_TIMEOUT(!w.lintView()->lintPending(), 60000);
    QCOMPARE(appFindings(w.lintView()->report()), cliFindings(dataFile(QStringLiteral("ui/qwen3-batch.json")), {}));
    for (const Finding& f : w.lintView()->report().findings) QVERIFY(f.rule != "input-id-out-of-range");

    QVERIFY(d->choose(cache.spec("qwen3")));
    QCOMPARE(s.tokenizerSpec(), cache.spec("qwen3"));
    QVERIFY(s.decodesDump());
    QCOMPARE(s.tokenText(151644), QStringLiteral("<|im_start|>"));
    QTRY_VERIFY(w.tokenStrip()->positionCount() > 0);
    QVERIFY(w.tokenStrip()->describePosition(0).contains(QStringLiteral("<|im_start|>")));
    QVERIFY(!w.summaryLabel()->text().contains(QStringLiteral("undecoded")));
  }

  // Gemma 3's vocabulary (262144) holds every id of a Qwen3 dump, so it "fits" by size, and the cache
  // lists it first. The evidence ranks: Qwen3's <|im_start|> (151644) opens every row and is one of its
  // special tokens, while 151644 is plain text to Gemma. qwen3 is ranked first and pre-selected, gemma3
  // is not pre-selected; and after a choice (even gemma3) File > Which tokenizer stays enabled.
  void evidenceRanksTheDumpsTokenizer() {
    REQUIRE_TOKENIZER_CACHE(QFileInfo::exists(cached(QStringLiteral("gemma3/tokenizer.json"))));
    FakeCache cache({"gemma3", "llama3", "qwen3"});
    Session s;
    QVERIFY(s.openDataset(QStringLiteral("builtin:demo")));
    MainWindow w(&s);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(w.openPath(dataFile(QStringLiteral("ui/qwen3-batch.json"))));
    QTRY_VERIFY(w.tokenizerDialog() && w.tokenizerDialog()->isVisible());
    TokenizerChoiceDialog* d = w.tokenizerDialog();
    QTRY_VERIFY_WITH_TIMEOUT(!d->ranking(), 120000);
    QCOMPARE(QString::fromStdString(d->ranked().front().spec), cache.spec("qwen3"));
    const TokenizerEvidence& qwen = d->evidence(0);
    QVERIFY2(d->supported(0), qwen.describe().c_str());
    QCOMPARE(qwen.rowsStartingSpecial, qwen.rowsJudged);
    QCOMPARE(qwen.firstSpecial, std::string("<|im_start|>"));
    bool sawGemma = false;
    for (size_t i = 0; i < d->ranked().size(); ++i)
      if (d->ranked()[i].spec == cache.spec("gemma3").toStdString()) {
        sawGemma = true;
        QVERIFY2(d->ranked()[i].fit.fits && !d->supported(i), d->evidence(i).describe().c_str());
      }
    QVERIFY(sawGemma);
    QCOMPARE(d->list()->currentRow(), 0); // qwen3 pre-selected
    saveScreenshot(*d, QStringLiteral("dump-tokenizer-dialog"));
    QVERIFY(d->list()->currentItem()->text().contains(QStringLiteral("special tokens open the rows")));
    // One click on gemma3 anyway: honoured, and the question can be asked again.
    QVERIFY(d->choose(cache.spec("gemma3")));
    QCOMPARE(s.tokenizerSpec(), cache.spec("gemma3"));
    auto* again = w.findChild<QAction*>(QStringLiteral("dumpTokenizerAction"));
    QVERIFY(again);
    QTRY_VERIFY(again->isEnabled());
    again->trigger();
    QTRY_VERIFY(w.tokenizerDialog() && w.tokenizerDialog()->isVisible());
    QTRY_VERIFY_WITH_TIMEOUT(!w.tokenizerDialog()->ranking(), 120000);
    QVERIFY(w.tokenizerDialog()->choose(cache.spec("qwen3")));
    QCOMPARE(s.tokenText(151644), QStringLiteral("<|im_start|>"));
  }

  // No candidate's special tokens open the rows: none is pre-selected, and the dialog says why.
  void noEvidenceNoPreselection() {
    FakeCache cache({"qwen3"});
    const auto dump =
        std::make_shared<Batch>(loadBatchDump(dataFile(QStringLiteral("ui/qwen3-batch.json")).toStdString()));
    for (int64_t r = 0; r < dump->inputIds.rows; ++r) // every row now opens with plain text ("What")
      dump->inputIds.at(r, 0) = 3838;
    std::vector<TokenizerCandidate> candidates{{cache.spec("qwen3").toStdString(), "qwen3", "cached", {}, {}}};
    TokenizerChoiceDialog d(dump, QStringLiteral("edited.json"), QStringLiteral("builtin:demo"), TokenizerFit(),
                            candidates, RenderOptions());
    QTRY_VERIFY_WITH_TIMEOUT(!d.ranking(), 120000);
    QVERIFY(d.ranked().front().fit.fits);
    QVERIFY(!d.supported(0));
    QCOMPARE(d.list()->currentRow(), -1);
    QVERIFY2(d.explanationText().contains(QStringLiteral("None is pre-selected")), qPrintable(d.explanationText()));
  }

  // The app's lint view on a dump, with the tokenizer chosen, lists exactly the findings of
  // `maskscope lint DUMP --tokenizer T --json`.
  void appLintEqualsCliLint_data() {
    QTest::addColumn<QString>("dump");
    QTest::addColumn<QString>("tokenizer");
    QTest::newRow("qwen3-default") << "ui/qwen3-batch.json"
                                   << "qwen3";
    QTest::newRow("qwen3-hf-lm") << "ui/qwen3-hf-lm.json"
                                 << "qwen3";
    QTest::newRow("llama3-hf-lm") << "ui/llama3-hf-lm.json"
                                  << "llama3";
    QTest::newRow("qwen3-dump-with-demo") << "ui/qwen3-batch.json"
                                          << "builtin:demo"; // chosen although unfit
  }
  void appLintEqualsCliLint() {
    QFETCH(QString, dump);
    QFETCH(QString, tokenizer);
    const QString spec = tokenizer.startsWith(QLatin1String("builtin:")) ? tokenizer : cached(tokenizer);
    Session s;
    MainWindow w(&s);
    w.setAsksForTokenizer(false);
    QVERIFY(s.openBatchDump(dataFile(dump)));
    QVERIFY(s.chooseDumpTokenizer(spec));
    QVERIFY(s.decodesDump());
    w.lintView()->lintCurrentBatch();
    const QStringList app = appFindings(w.lintView()->report());
    std::string notes;
    const QStringList cli = cliFindings(dataFile(dump), spec, &notes);
    QCOMPARE(app, cli);
    QVERIFY(!cli.isEmpty());
    // The CLI names a tokenizer that does not fit, as the app's summary does.
    const bool fits = s.dumpFit().fits;
    QCOMPARE(QString::fromStdString(notes).contains(QStringLiteral("does not fit")), !fits);
    QCOMPARE(w.summaryLabel()->text().contains(QStringLiteral("does not fit")), !fits);
  }

  // `lint DUMP --tokenizer T` with a T that does not fit names the cached tokenizers that do.
  void cliNamesTheTokenizersThatFit() {
    FakeCache cache;
    std::string notes;
    cliFindings(dataFile(QStringLiteral("ui/qwen3-batch.json")), QStringLiteral("builtin:demo"), &notes);
    QVERIFY2(QString::fromStdString(notes).contains(QStringLiteral("builtin:demo does not fit")), notes.c_str());
    QVERIFY2(QString::fromStdString(notes).contains(QStringLiteral("tokenizers that fit: qwen3")), notes.c_str());
    QVERIFY(!QString::fromStdString(notes).contains(QStringLiteral("llama3")));
  }
};

QTEST_MAIN(TestDumpTokenizer)
#include "tst_dump_tokenizer.moc"
