// docs/cli.md is the command-line reference: every `$ maskscope ...` example in it runs here with the
// built binary, in a scratch folder holding the page's example files, and must exit as the page says,
// print parseable JSON with --json, and match the JSON fields the page shows (the capture folder
// `capture/` is tests/data/capture/example). Every option a command's table documents must be one
// that command's --help lists (so the binary accepts it).
#include "DocPage.h"
#include "RunMaskscope.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>

namespace {

Run runMaskscope(const std::vector<std::string>& args, const QString& workDir) {
  QStringList qargs;
  for (const auto& a : args) qargs << QString::fromStdString(a);
  return runMaskscope(qargs, workDir);
}

const docpage::DocPage& page() {
  static const docpage::DocPage parsed = [] {
    std::ifstream in(MASKSCOPE_SOURCE_DIR "/docs/cli.md", std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return docpage::parseDocPage(text.str());
  }();
  return parsed;
}

std::string joined(const std::vector<std::string>& args) {
  std::string s = "maskscope";
  for (const auto& a : args) s += " " + a;
  return s;
}

std::vector<std::string> nonEmptyLines(const QByteArray& bytes) {
  std::vector<std::string> lines;
  std::istringstream in(bytes.toStdString());
  for (std::string l; std::getline(in, l);)
    if (!l.empty()) lines.push_back(l);
  return lines;
}

// The command names of `maskscope --help` (CLI11's "SUBCOMMANDS:" section: one indented line each).
std::vector<std::string> helpCommands(const QByteArray& help) {
  std::vector<std::string> names;
  bool inSection = false;
  for (const std::string& line : nonEmptyLines(help)) {
    std::string lower = line;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    if (lower.starts_with("subcommands:")) {
      inSection = true;
      continue;
    }
    if (!inSection) continue;
    if (!line.starts_with(" ")) break;
    std::istringstream words(line);
    std::string name;
    words >> name;
    names.push_back(name);
  }
  return names;
}

// With --json: every stdout line is JSON; where the page shows JSON lines, line k matches shown k.
void checkJsonOutput(const docpage::DocExample& ex, const Run& r) {
  const std::vector<std::string> lines = nonEmptyLines(r.out);
  std::vector<nlohmann::json> parsed;
  for (const auto& l : lines) {
    auto j = nlohmann::json::parse(l, nullptr, false);
    QVERIFY2(!j.is_discarded(), ("stdout is not JSON: " + l.substr(0, 300)).c_str());
    parsed.push_back(std::move(j));
  }
  if (r.status != 2) QVERIFY2(!parsed.empty(), "--json printed nothing");
  QVERIFY2(ex.shownOutput.size() <= parsed.size(), "the page shows more JSON lines than the binary prints");
  for (size_t k = 0; k < ex.shownOutput.size(); ++k) {
    auto shown = nlohmann::json::parse(ex.shownOutput[k], nullptr, false);
    QVERIFY2(!shown.is_discarded(), ("the page shows output that is not JSON: " + ex.shownOutput[k]).c_str());
    std::string why;
    QVERIFY2(docpage::jsonShownMatches(shown, parsed[k], why), why.c_str());
  }
}

// The page's capture folder (binary batch files, so no file= block): tests/data/capture/example.
void copyFolder(const QString& from, const QString& to) {
  QDirIterator it(from, QDir::Files, QDirIterator::Subdirectories);
  while (it.hasNext()) {
    const QString file = it.next();
    const QString target = to + QLatin1Char('/') + QDir(from).relativeFilePath(file);
    QDir().mkpath(QFileInfo(target).path());
    QFile::copy(file, target);
  }
}

} // namespace

class TestDocExamples : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void pageHasExamples();
  void example_data();
  void example();
  void documentedOptionIsAccepted_data();
  void documentedOptionIsAccepted();
  void jsonShownMatchesIsStrict_data();
  void jsonShownMatchesIsStrict();
  void shellWords_data();
  void shellWords();
};

void TestDocExamples::pageHasExamples() {
  // Every command of the binary's command table (as `maskscope --help` lists it) has at least one
  // runnable example, and the example files exist.
  const std::vector<std::string> commands = helpCommands(runMaskscope(QStringList{QStringLiteral("--help")}).out);
  QVERIFY2(commands.size() >= 9, "maskscope --help lists fewer commands than the nine of this round");
  for (const std::string& command : commands) {
    const bool found = std::any_of(page().examples.begin(), page().examples.end(),
                                   [&](const auto& e) { return !e.args.empty() && e.args[0] == command; });
    QVERIFY2(found, ("docs/cli.md has no runnable example of `maskscope " + command + "`").c_str());
  }
  QVERIFY(page().files.size() >= 4);
  QVERIFY(page().options.size() >= 40);
}

void TestDocExamples::example_data() {
  QTest::addColumn<int>("index");
  for (size_t i = 0; i < page().examples.size(); ++i)
    QTest::newRow(("cli.md:" + std::to_string(page().examples[i].line)).c_str()) << int(i);
}

void TestDocExamples::example() {
  QFETCH(int, index);
  const docpage::DocExample& ex = page().examples[size_t(index)];
  QTemporaryDir dir;
  QVERIFY(dir.isValid());
  for (const auto& f : page().files) {
    QFile out(dir.filePath(QString::fromStdString(f.name)));
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write(f.text.data(), qint64(f.text.size()));
  }
  copyFolder(QStringLiteral(MASKSCOPE_TEST_DATA_DIR "/capture/example"), dir.filePath(QStringLiteral("capture")));
  const Run r = runMaskscope(ex.args, dir.path());
  const std::string context = joined(ex.args) + "\nstderr: " + r.err.left(2000).toStdString();
  QVERIFY2(r.status == ex.status,
           ("exit status " + std::to_string(r.status) + ", the page says " + std::to_string(ex.status) + "\n" + context)
               .c_str());
  if (std::find(ex.args.begin(), ex.args.end(), "--json") != ex.args.end()) {
    checkJsonOutput(ex, r);
    return;
  }
  // Text output: each line the page shows is a line of what the binary prints.
  const std::string all = "\n" + r.out.toStdString() + "\n" + r.err.toStdString();
  for (const auto& shown : ex.shownOutput)
    QVERIFY2(all.find("\n" + shown + "\n") != std::string::npos, ("not printed: " + shown + "\n" + context).c_str());
}

void TestDocExamples::documentedOptionIsAccepted_data() {
  QTest::addColumn<QString>("command");
  QTest::addColumn<QString>("option");
  for (const auto& o : page().options)
    QTest::newRow(("cli.md:" + std::to_string(o.line) + " " + o.command + " " + o.option).c_str())
        << QString::fromStdString(o.command) << QString::fromStdString(o.option);
}

void TestDocExamples::documentedOptionIsAccepted() {
  QFETCH(QString, command);
  QFETCH(QString, option);
  const Run r = runMaskscope({command.toStdString(), "--help"}, QDir::tempPath());
  QCOMPARE(r.status, 0);
  // CLI11 lists each option at the start of a help line, followed by a space or a comma.
  const QString help = QString::fromUtf8(r.out);
  const bool listed = help.contains(QStringLiteral("  ") + option + QLatin1Char(' ')) ||
                      help.contains(QStringLiteral("  ") + option + QLatin1Char('\n')) ||
                      help.contains(QStringLiteral("  ") + option + QLatin1Char(','));
  QVERIFY2(listed, qPrintable(command + QStringLiteral(" --help does not list ") + option));
}

void TestDocExamples::jsonShownMatchesIsStrict_data() {
  QTest::addColumn<QString>("shown");
  QTest::addColumn<QString>("actual");
  QTest::addColumn<bool>("matches");
  QTest::newRow("subset-of-keys") << QStringLiteral("{\"a\":1}") << QStringLiteral("{\"a\":1,\"b\":2}") << true;
  QTest::newRow("missing-key") << QStringLiteral("{\"c\":1}") << QStringLiteral("{\"a\":1}") << false;
  QTest::newRow("other-value") << QStringLiteral("{\"a\":1}") << QStringLiteral("{\"a\":2}") << false;
  QTest::newRow("list-length") << QStringLiteral("[1,2]") << QStringLiteral("[1,2,3]") << false;
  QTest::newRow("null-vs-list") << QStringLiteral("{\"s\":null}") << QStringLiteral("{\"s\":[[1,2]]}") << false;
  QTest::newRow("float-tolerance") << QStringLiteral("[0.1]") << QStringLiteral("[0.10000000000001]") << true;
}

void TestDocExamples::jsonShownMatchesIsStrict() {
  QFETCH(QString, shown);
  QFETCH(QString, actual);
  QFETCH(bool, matches);
  std::string why;
  QCOMPARE(docpage::jsonShownMatches(nlohmann::json::parse(shown.toStdString()),
                                     nlohmann::json::parse(actual.toStdString()), why),
           matches);
}

void TestDocExamples::shellWords_data() {
  QTest::addColumn<QString>("line");
  QTest::addColumn<QString>("words"); // joined with '|'
  QTest::newRow("plain") << QStringLiteral("lint a.json  --json") << QStringLiteral("lint|a.json|--json");
  QTest::newRow("double-quotes") << QStringLiteral("--text \"a b\\\"c\"") << QStringLiteral("--text|a b\"c");
  QTest::newRow("single-quotes") << QStringLiteral("--text 'x \"y\"'") << QStringLiteral("--text|x \"y\"");
  QTest::newRow("empty-word") << QStringLiteral("--text \"\"") << QStringLiteral("--text|");
}

void TestDocExamples::shellWords() {
  QFETCH(QString, line);
  QFETCH(QString, words);
  QStringList got;
  for (const auto& w : docpage::splitShellWords(line.toStdString())) got << QString::fromStdString(w);
  QCOMPARE(got.join(QLatin1Char('|')), words);
}

QTEST_GUILESS_MAIN(TestDocExamples)
#include "tst_doc_examples.moc"
