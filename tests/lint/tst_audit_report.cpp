// lint --report: the audit page of tests/data/lint/audit/audit.jsonl (tools/lint-fixtures/
// make_audit_fixture.py) read back against lint --json of the same run settings (one number per
// fact), hostile text escaped, nothing external, first three rows per rule; the refusals; and the
// page rendered by headless Chromium (skipped, with the reason, when no chromium binary is found).
#include "core/commands/CommandIO.h"
#include "core/commands/LintCommand.h"
#include "core/util/FileReading.h"
#include "tests/TokenizerCacheRequired.h"

#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

using namespace maskscope;
using json = nlohmann::json;

namespace {

const std::string kData = MASKSCOPE_TEST_DATA_DIR "/lint/audit/audit.jsonl";
const std::string kHostile = "</script><img src=x onerror=alert(1)>";

struct Run {
  int status = 0;
  std::string out, err;
};

Run lint(LintArgs a, bool asJson) {
  std::ostringstream out, err;
  CommandIO io{out, err, asJson, false};
  Run r;
  r.status = runCommand(io, [&] { return runLint(a, io); });
  r.out = out.str();
  r.err = err.str();
  return r;
}

LintArgs args(const std::string& tokenizer, const std::string& collator) {
  LintArgs a;
  a.input = kData;
  a.tokenizerSpec = tokenizer;
  a.collatorSpec = collator;
  a.threads = 2;
  a.vars = {{"note", kHostile}};
  return a;
}

// The text of the element with id="name" up to its closing tag's first '<'.
std::string cellById(const std::string& html, const std::string& id) {
  const size_t at = html.find("id=\"" + id + "\"");
  if (at == std::string::npos) return "";
  const size_t gt = html.find('>', at), lt = html.find('<', gt);
  return html.substr(gt + 1, lt - gt - 1);
}

// The number in the counts table row headed `name`.
long countRow(const std::string& html, const std::string& name) {
  const size_t at = html.find("<th>" + name + "</th><td class=\"n\">");
  if (at == std::string::npos) return -1;
  return std::stol(html.substr(html.find("\">", at + name.size() + 9) + 2));
}

std::string section(const std::string& html, const std::string& rule) {
  const size_t at = html.find("<section class=\"rule\" id=\"rule-" + rule + "\">");
  if (at == std::string::npos) return "";
  return html.substr(at, html.find("</section>", at) - at);
}

long occurrences(const std::string& s, const std::string& what) {
  long n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

// Distinct rows (or unreadable lines) the findings of a rule name, as the report counts them.
long distinctRows(const json& findings, const std::string& rule) {
  std::set<std::string> rows;
  for (const json& f : findings)
    if (f["rule"] == rule && (!f["row"].is_null() || f.contains("line")))
      rows.insert(f["row"].is_null() ? "line " + f["line"].dump() : f["row"].dump());
  return long(rows.size());
}

} // namespace

class TestAuditReport : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void pageMatchesJson_data();
  void pageMatchesJson();
  void everyFindingReachesThePage_data();
  void everyFindingReachesThePage();
  void errorsFirst();
  void refusals_data();
  void refusals();
  void rendersInChromium();
};

void TestAuditReport::pageMatchesJson_data() {
  QTest::addColumn<QString>("tokenizer");
  QTest::addColumn<QString>("collator");
  QTest::addColumn<QStringList>("rules"); // rules the fixture must make fire
  const QString qwen3 = QString::fromStdString(std::string(MASKSCOPE_TOKENIZER_CACHE) + "/qwen3");
  QTest::newRow("qwen3_trl_assistant_only")
      << qwen3 << QStringLiteral("trl-assistant-only")
      << QStringList{QStringLiteral("empty-reply"), QStringLiteral("no-graded-tokens"),
                     QStringLiteral("reply-truncated"), QStringLiteral("duplicate-row"), QStringLiteral("row-skipped")};
  QTest::newRow("demo_buggy_pad_is_eos") << "builtin:demo"
                                         << "buggy-pad-is-eos"
                                         << QStringList{QStringLiteral("stop-token-not-graded"),
                                                        QStringLiteral("empty-reply"), QStringLiteral("row-skipped")};
}

void TestAuditReport::pageMatchesJson() {
  QFETCH(QString, tokenizer);
  QFETCH(QString, collator);
  QFETCH(QStringList, rules);
  if (tokenizer.startsWith(QLatin1Char('/'))) REQUIRE_TOKENIZER_CACHE(std::filesystem::exists(tokenizer.toStdString()));
  QTemporaryDir dir;
  LintArgs a = args(tokenizer.toStdString(), collator.toStdString());
  a.maxFindings = -1;
  const Run asJson = lint(a, true);
  a.reportPath = dir.path().toStdString() + "/audit.html";
  const Run withReport = lint(a, false);
  QCOMPARE(withReport.status, asJson.status);
  const json j = json::parse(asJson.out);
  const json& s = j["summary"];
  const std::string html = readFileCapped(a.reportPath);

  // One number per fact: the page's counts are the JSON summary's.
  QCOMPARE(countRow(html, "rows linted"), s["rows"].get<long>());
  QCOMPARE(countRow(html, "rows read"), s["rows_read"].get<long>());
  QCOMPARE(countRow(html, "rows skipped (unreadable)"), s["rows_skipped"].get<long>());
  QCOMPARE(countRow(html, "errors"), s["errors"].get<long>());
  QCOMPARE(countRow(html, "warnings"), s["warnings"].get<long>());
  QCOMPARE(std::stol(cellById(html, "trained-total")), s["graded"]["total"].get<long>());
  auto byRule = [&](const char* rule) { return s["findings_by_rule"].value(rule, 0L); };
  QCOMPARE(std::stol(cellById(html, "nothing-trained-count")), s["rows_nothing_graded"].get<long>());
  QCOMPARE(std::stol(cellById(html, "closing-not-trained-count")), byRule("stop-token-not-graded"));
  QCOMPARE(std::stol(cellById(html, "replies-cut-count")), byRule("reply-truncated"));
  const std::string verdict = cellById(html, "verdict");
  QCOMPARE(verdict, std::string(asJson.status == 0 ? (s["warnings"].get<long>() > 0 ? "review" : "accept") : "reject"));

  // Nothing external, nothing active, the hostile row and variable escaped, two SVG histograms.
  for (const char* bad : {"http://", "https://", "src=\"", "src='", "url(", "<script", "<img", "onerror=alert(1)>"})
    QVERIFY2(html.find(bad) == std::string::npos, bad);
  QVERIFY(html.find("&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;") != std::string::npos);
  QCOMPARE(occurrences(html, "<svg class=\"hist\""), 2L);

  // Each rule that fired: its section with the JSON count, and its first three distinct rows.
  for (const QString& r : rules) QVERIFY2(s["findings_by_rule"].contains(r.toStdString()), qPrintable(r));
  for (const auto& [rule, count] : s["findings_by_rule"].items()) {
    const std::string sec = section(html, rule);
    QVERIFY2(!sec.empty(), rule.c_str());
    QVERIFY2(sec.find("<span class=\"count\">" + count.dump() + "</span>") != std::string::npos, rule.c_str());
    const long expected = std::min<long>(3, distinctRows(j["findings"], rule));
    QCOMPARE(occurrences(sec, "<p class=\"where\">"), expected);
  }
  // Rows the template took are drawn token by token (empty-reply: four rows, three drawn).
  QCOMPARE(occurrences(section(html, "empty-reply"), "<div class=\"strip\">"), 3L);
  QVERIFY(section(html, "row-skipped").find("<div class=\"strip\">") == std::string::npos); // unreadable: message only
  // A long row is drawn in windows (start, around the flagged position, end), the rest folded.
  for (size_t at = html.find("<div class=\"strip\">"); at != std::string::npos;
       at = html.find("<div class=\"strip\">", at + 1)) {
    const std::string strip = html.substr(at, html.find("</div>", at) - at);
    QVERIFY(occurrences(strip, "<span class=\"chip") <= 200);
  }
  if (s["findings_by_rule"].contains("reply-truncated"))
    QVERIFY(section(html, "reply-truncated").find("positions not drawn") != std::string::npos);
  QVERIFY(html.find("maskscope " MASKSCOPE_VERSION) != std::string::npos);
  QVERIFY(cellById(html, "command").find("--collator " + collator.toStdString()) != std::string::npos);
}

// tests/data/lint/audit/duplicates.jsonl: line 1 and 24 copies of it, then four rows and a copy of the
// first of them at line 30 (the planted one): 25 duplicate-row findings. Each one reaches the page, in
// the rule's folded list of every finding; when the run keeps fewer (--max-findings), the page says how
// many are not listed and how to get them.
void TestAuditReport::everyFindingReachesThePage_data() {
  QTest::addColumn<long>("maxFindings");
  QTest::newRow("all_kept") << -1L;
  QTest::newRow("default_cap") << 1000L;
  QTest::newRow("capped_at_10") << 10L;
}

void TestAuditReport::everyFindingReachesThePage() {
  QFETCH(long, maxFindings);
  QTemporaryDir dir;
  LintArgs a = args("builtin:demo", "default");
  a.input = MASKSCOPE_TEST_DATA_DIR "/lint/audit/duplicates.jsonl";
  a.vars.clear();
  a.maxFindings = -1;
  const json all = json::parse(lint(a, true).out); // every finding, as --findings-out has them
  a.maxFindings = maxFindings;
  const json kept = json::parse(lint(a, true).out); // what the run with the page keeps
  a.reportPath = dir.path().toStdString() + "/audit.html";
  lint(a, false);
  const std::string html = readFileCapped(a.reportPath);
  const long total = all["summary"]["findings_by_rule"]["duplicate-row"].get<long>();
  QCOMPARE(total, 25L);
  const std::string sec = section(html, "duplicate-row");
  const size_t details = sec.find("<details class=\"all-findings\"");
  QVERIFY2(details != std::string::npos, "no list of every finding");
  const std::string list = sec.substr(details);
  long listed = 0;
  for (const json& f : kept["findings"]) {
    if (f["rule"] != "duplicate-row") continue;
    ++listed;
    const std::string row = "<tr><td>line " + f["line"].dump() + "</td>";
    QVERIFY2(list.find(row) != std::string::npos, row.c_str());
  }
  QCOMPARE(listed < total, maxFindings == 10);
  QVERIFY2(list.find("<span class=\"listed\">" + std::to_string(listed) + "</span> of " + std::to_string(total)) !=
               std::string::npos,
           list.c_str());
  QCOMPARE(occurrences(list, "<tr><td>"), listed);
  if (listed < total) { // the rest counted, and where to get them
    QVERIFY2(list.find("<b class=\"omitted\">" + std::to_string(total - listed) + " not listed</b>") !=
                 std::string::npos,
             list.c_str());
    QVERIFY(list.find("--findings-out") != std::string::npos);
  } else {
    QVERIFY(list.find("class=\"omitted\"") == std::string::npos);
    QVERIFY(list.find("<tr><td>line 30</td>") != std::string::npos); // the planted one
  }
}

// The rules' sections come errors first, then warnings, then infos: on the reviewer's planted rows
// (tests/data/lint/review/planted.jsonl: warnings such as consecutive-same-role come before errors
// such as unclosed-think in the rule table's order).
void TestAuditReport::errorsFirst() {
  const std::string qwen3 = std::string(MASKSCOPE_TOKENIZER_CACHE) + "/qwen3";
  REQUIRE_TOKENIZER_CACHE(std::filesystem::exists(qwen3));
  QTemporaryDir dir;
  const std::string data = dir.path().toStdString() + "/planted.jsonl";
  {
    std::ofstream out(data);
    std::istringstream in(readFileCapped(MASKSCOPE_TEST_DATA_DIR "/lint/review/planted.jsonl"));
    for (std::string line; std::getline(in, line);) {
      if (line.empty()) continue;
      const json p = json::parse(line);
      // The duplicate and long entries are recipes tst_lint_review expands; only raw and row lines are rows.
      if (p.contains("raw"))
        out << p["raw"].get<std::string>() << "\n";
      else if (p.contains("row"))
        out << p["row"].dump() << "\n";
    }
  }
  LintArgs a = args(qwen3, "trl-assistant-only");
  a.input = data;
  a.reportPath = dir.path().toStdString() + "/audit.html";
  lint(a, false);
  const std::string html = readFileCapped(a.reportPath);
  std::vector<int> ranks; // 2 error, 1 warning, 0 info, in page order
  for (size_t at = html.find("<section class=\"rule\""); at != std::string::npos;
       at = html.find("<section class=\"rule\"", at + 1)) {
    const size_t sev = html.find("<span class=\"sev-", at);
    QVERIFY(sev != std::string::npos);
    const std::string name = html.substr(sev + 17, html.find('"', sev + 17) - sev - 17);
    ranks.push_back(name == "error" ? 2 : name == "warning" ? 1 : 0);
  }
  QVERIFY(ranks.size() >= 3);
  QVERIFY(std::count(ranks.begin(), ranks.end(), 2) > 0 && std::count(ranks.begin(), ranks.end(), 1) > 0);
  QVERIFY2(std::is_sorted(ranks.rbegin(), ranks.rend()), "a rule of lower severity before an error");
}

void TestAuditReport::refusals_data() {
  QTest::addColumn<QString>("input");
  QTest::addColumn<QString>("shard");
  QTest::addColumn<QString>("report");
  QTest::addColumn<QString>("says");
  const QString dump = QString::fromStdString(MASKSCOPE_TEST_DATA_DIR "/lint/naive-packing-pad.json");
  QTest::newRow("batch_dump") << dump << ""
                              << "a.html"
                              << "a batch dump";
  QTest::newRow("shard") << QString::fromStdString(kData) << "0/2"
                         << "a.html"
                         << "--shard";
  QTest::newRow("preference") << QStringLiteral(MASKSCOPE_TEST_DATA_DIR "/preference/conversational.jsonl") << QString()
                              << QStringLiteral("a.html") << QStringLiteral("preference data");
  QTest::newRow("merge") << QString() << QString() << QStringLiteral("a.html") << QStringLiteral("--merge");
  QTest::newRow("not_html") << QString::fromStdString(kData) << ""
                            << "a.txt"
                            << "ending in .html";
}

void TestAuditReport::refusals() {
  QFETCH(QString, input);
  QFETCH(QString, shard);
  QFETCH(QString, report);
  QFETCH(QString, says);
  QTemporaryDir dir;
  LintArgs a = args("builtin:demo", "default");
  a.input = input.toStdString();
  a.shard = shard.toStdString();
  a.reportPath = dir.path().toStdString() + "/" + report.toStdString();
  if (input.isEmpty()) a.merge = {kData}; // --merge takes shard reports, never a page
  const Run r = lint(a, false);
  QCOMPARE(r.status, 2);
  QVERIFY2(r.err.find(says.toStdString()) != std::string::npos, r.err.c_str());
  QVERIFY(!std::filesystem::exists(a.reportPath));
}

// The page in a real browser: the DOM Chromium builds has the verdict and no element the hostile
// row could have injected, and a 1280-wide screenshot is written.
void TestAuditReport::rendersInChromium() {
  const QString chromium = QStandardPaths::findExecutable(QStringLiteral("chromium"));
  if (chromium.isEmpty()) QSKIP("no chromium binary on PATH (Debian package chromium, packaging/debian-packages.txt)");
  QTemporaryDir dir;
  LintArgs a = args("builtin:demo", "buggy-pad-is-eos");
  a.reportPath = dir.path().toStdString() + "/audit.html";
  QCOMPARE(lint(a, false).status, 1);
  const QString url = QStringLiteral("file://") + QString::fromStdString(a.reportPath);
  const QStringList common{QStringLiteral("--headless"), QStringLiteral("--no-sandbox"),
                           QStringLiteral("--disable-gpu"), QStringLiteral("--hide-scrollbars"),
                           QStringLiteral("--user-data-dir=") + dir.path() + QStringLiteral("/profile")};
  QProcess dom;
  dom.start(chromium, common + QStringList{QStringLiteral("--dump-dom"), url});
  QVERIFY(dom.waitForFinished(60000));
  const QString text = QString::fromUtf8(dom.readAllStandardOutput());
  QVERIFY2(text.contains(QStringLiteral("class=\"verdict reject\"")), qPrintable(text.left(400)));
  QVERIFY(!text.contains(QStringLiteral("<img")) && !text.contains(QStringLiteral("<script")));
  QVERIFY(text.contains(QStringLiteral("&lt;/script&gt;&lt;img")));
  const QString png = dir.path() + QStringLiteral("/audit.png");
  QProcess shot;
  shot.start(chromium, common + QStringList{QStringLiteral("--window-size=1280,2400"),
                                            QStringLiteral("--screenshot=") + png, url});
  QVERIFY(shot.waitForFinished(60000));
  QFile f(png);
  QVERIFY2(f.open(QIODevice::ReadOnly), qPrintable(QString::fromUtf8(shot.readAllStandardError()).right(400)));
  const QByteArray head = f.read(24);
  QVERIFY(head.startsWith("\x89PNG"));
  const quint32 width =
      (quint8(head[16]) << 24) | (quint8(head[17]) << 16) | (quint8(head[18]) << 8) | quint8(head[19]);
  QCOMPARE(width, 1280u);
  QVERIFY(f.size() > 50000); // a page with text and charts, not a blank image
}

QTEST_GUILESS_MAIN(TestAuditReport)
#include "tst_audit_report.moc"
