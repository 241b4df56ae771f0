// Reviewing a dataset in the app, off screen (tests/data/ui/review-small.jsonl: clean rows, an
// unreadable line, a blank line, an empty reply, a duplicate, two user turns in a row): the dataset
// browser names each row's file line, filters to the rows of one rule after a whole-dataset lint, a
// finding jumps to its row, and File > Export lint findings writes every finding as TSV, CSV or JSONL.
#include "core/util/FileReading.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/Session.h"
#include "ui/views/lint/LintView.h"

#include <QComboBox>
#include <QListWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>
#include <nlohmann/json.hpp>
#include <sstream>

using namespace maskscope;

namespace {

const QString kData = QStringLiteral(MASKSCOPE_TEST_DATA_DIR "/ui/review-small.jsonl");

// The rows the list shows (by their dataset row), in list order.
QList<int> visibleRows(const QTreeView* list) {
  QList<int> rows;
  for (int i = 0; i < list->model()->rowCount(); ++i) rows << list->model()->index(i, 0).data(Qt::UserRole).toInt();
  return rows;
}

// MASKSCOPE_TEST_SCREENSHOTS=DIR: the window as the test left it, saved as DIR/NAME.png to look at.
void saveScreenshot(QWidget& w, const QString& name) {
  const QString dir = qEnvironmentVariable("MASKSCOPE_TEST_SCREENSHOTS");
  if (!dir.isEmpty()) w.grab().save(dir + QStringLiteral("/") + name + QStringLiteral(".png"));
}

int findingIndex(const LintView* lint, const std::string& rule) {
  const auto& f = lint->report().findings;
  for (size_t i = 0; i < f.size(); ++i)
    if (f[i].rule == rule) return int(i);
  return -1;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

} // namespace

class TestDatasetReview : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void browserShowsFileLines();
  void filterByRuleAndJump();
  void clickedFindingIsTheHighlightedOne();
  void exportFindings_data();
  void exportFindings();

private:
  // A window on the fixture with a whole-dataset lint shown.
  static void lintWholeDataset(Session& s, MainWindow& w) {
    QVERIFY(s.openDataset(kData));
    w.lintView()->lintDataset();
    QTRY_VERIFY(w.lintView()->showsDatasetFindings());
  }
};

// Rows 0..4 sit on lines 1, 4, 5, 6 and 7: after the unreadable line 2 and the blank line 3 the
// row number and the line differ, and the list names the line.
void TestDatasetReview::browserShowsFileLines() {
  Session s;
  QVERIFY(s.openDataset(kData));
  MainWindow w(&s);
  QTreeView* list = w.conversationList();
  QCOMPARE(list->model()->rowCount(), 5);
  const QStringList expected = {QStringLiteral("line 1 "), QStringLiteral("line 4 "), QStringLiteral("line 5 "),
                                QStringLiteral("line 6 "), QStringLiteral("line 7 ")};
  for (int i = 0; i < list->model()->rowCount(); ++i) {
    const QString title = list->model()->index(i, 0).data().toString();
    QVERIFY2(title.startsWith(expected[i]), qPrintable(title));
  }
}

void TestDatasetReview::filterByRuleAndJump() {
  Session s;
  MainWindow w(&s);
  lintWholeDataset(s, w);
  QComboBox* box = w.findingFilterBox();
  // One entry per rule that names rows, with the number of rows.
  const int empty = box->findData(QStringLiteral("empty-reply"));
  const int duplicate = box->findData(QStringLiteral("duplicate-row"));
  const int twoUsers = box->findData(QStringLiteral("consecutive-same-role"));
  QVERIFY2(empty > 1 && duplicate > 1 && twoUsers > 1, qPrintable(w.lintView()->summaryText()));
  QVERIFY(box->itemText(empty).contains(QStringLiteral("(1)")));
  box->setCurrentIndex(empty);
  QTRY_COMPARE(visibleRows(w.conversationList()), QList<int>{2});
  box->setCurrentIndex(duplicate);
  QTRY_COMPARE(visibleRows(w.conversationList()), QList<int>{3});
  box->setCurrentIndex(1); // any finding: the three planted rows, not the clean ones
  QTRY_COMPARE(visibleRows(w.conversationList()), (QList<int>{2, 3, 4}));
  box->setCurrentIndex(0);
  QTRY_COMPARE(w.visibleRowCount(), 5);
  // The findings list names the file line; selecting a finding selects its row in the browser.
  const int at = findingIndex(w.lintView(), "consecutive-same-role");
  QVERIFY(at >= 0);
  QVERIFY2(w.lintView()->list()->item(w.lintView()->listRowOf(at))->text().contains(QStringLiteral("line 7")),
           qPrintable(w.lintView()->list()->item(w.lintView()->listRowOf(at))->text()));
  w.lintView()->selectFinding(at);
  QTRY_COMPARE(s.selectedRow(), 4);
  QTRY_COMPARE(w.conversationList()->currentIndex().data(Qt::UserRole).toInt(), 4);
  // The unreadable line is a data error in the summary.
  QVERIFY2(w.lintView()->summaryText().contains(QStringLiteral("data: ")), qPrintable(w.lintView()->summaryText()));
}

// A finding clicked in the list (the mouse, as a reviewer does): the lint list highlights that
// finding and nothing else, the dataset list highlights the finding's row and nothing else, also when
// its filter shows only another rule's rows (the row the views jumped to is not listed: no row is
// highlighted then, never the previous one). Each message is whole in its item's tooltip (one line per
// finding, so that more findings show: the list may cut a long one at its edge).
void TestDatasetReview::clickedFindingIsTheHighlightedOne() {
  Session s;
  MainWindow w(&s);
  w.resize(1024, 768);
  w.show();
  QVERIFY(QTest::qWaitForWindowExposed(&w));
  lintWholeDataset(s, w);
  w.showView(QStringLiteral("lint"));
  QListWidget* findings = w.lintView()->list();
  QTRY_VERIFY(findings->isVisible());
  QVERIFY(!findings->wordWrap());
  for (int i = 0; i < findings->count(); ++i) {
    const Finding& f = w.lintView()->report().findings[size_t(w.lintView()->findingAtRow(i))];
    QVERIFY2(findings->item(i)->toolTip().contains(QString::fromStdString(f.message)),
             qPrintable(findings->item(i)->toolTip()));
  }
  QComboBox* box = w.findingFilterBox();
  for (const char* filter : {"", "empty-reply"}) {
    box->setCurrentIndex(*filter ? box->findData(QString::fromLatin1(filter)) : 0);
    for (const char* rule : {"consecutive-same-role", "duplicate-row", "empty-reply"}) {
      const int at = findingIndex(w.lintView(), rule);
      QVERIFY(at >= 0);
      QListWidgetItem* item = findings->item(w.lintView()->listRowOf(at));
      findings->scrollToItem(item);
      QTest::mouseClick(findings->viewport(), Qt::LeftButton, {}, findings->visualItemRect(item).center());
      const int row = int(*w.lintView()->report().findings[size_t(at)].row);
      QTRY_COMPARE(s.selectedRow(), row);
      QCOMPARE(findings->currentRow(), w.lintView()->listRowOf(at));
      QCOMPARE(findings->selectedItems(), QList<QListWidgetItem*>{item});
      QList<int> highlighted;
      for (const QModelIndex& i : w.conversationList()->selectionModel()->selectedIndexes())
        highlighted << i.data(Qt::UserRole).toInt();
      const bool listed = visibleRows(w.conversationList()).contains(row);
      QCOMPARE(highlighted, listed ? QList<int>{row} : QList<int>{});
    }
  }
  saveScreenshot(w, QStringLiteral("review-finding-clicked-1024x768"));
}

void TestDatasetReview::exportFindings_data() {
  QTest::addColumn<QString>("file");
  QTest::newRow("tsv") << QStringLiteral("findings.tsv");
  QTest::newRow("csv") << QStringLiteral("findings.csv");
  QTest::newRow("jsonl") << QStringLiteral("findings.jsonl");
}

// Every finding of the run, one line each (after a header for TSV and CSV), with its line, rule,
// severity, scope and the rule's fix.
void TestDatasetReview::exportFindings() {
  QFETCH(QString, file);
  Session s;
  MainWindow w(&s);
  lintWholeDataset(s, w);
  QTemporaryDir dir;
  QVERIFY(dir.isValid());
  const QString path = dir.filePath(file);
  QString error;
  QVERIFY2(w.exportFindings(path, &error), qPrintable(error));
  const std::vector<std::string> rows = lines(readFileCapped(path.toStdString()));
  const size_t findings = w.lintView()->report().findings.size();
  const bool header = !file.endsWith(QStringLiteral(".jsonl"));
  QCOMPARE(rows.size(), findings + (header ? 1 : 0));
  std::string emptyReply;
  for (const std::string& r : rows)
    if (r.find("empty-reply") != std::string::npos) emptyReply = r;
  QVERIFY(!emptyReply.empty());
  if (file.endsWith(QStringLiteral(".tsv"))) {
    QCOMPARE(rows.front(), std::string("line\trule\tseverity\tscope\tmessage\tfix"));
    QVERIFY2(emptyReply.starts_with("5\tempty-reply\terror\tdata\tline 5: "), emptyReply.c_str());
  } else if (file.endsWith(QStringLiteral(".csv"))) {
    QCOMPARE(rows.front(), std::string("line,rule,severity,scope,message,fix"));
    QVERIFY2(emptyReply.starts_with("5,empty-reply,error,data,"), emptyReply.c_str());
  } else {
    const nlohmann::json j = nlohmann::json::parse(emptyReply);
    QCOMPARE(j["line"].get<long>(), 5L);
    QCOMPARE(j["scope"].get<std::string>(), std::string("data"));
    QVERIFY(j["fix"].get<std::string>().find("delete the row") != std::string::npos);
  }
  // Another extension is refused with the reason, and nothing is written.
  QVERIFY(!w.exportFindings(dir.filePath(QStringLiteral("findings.txt")), &error));
  QVERIFY2(error.contains(QStringLiteral(".tsv")), qPrintable(error));
  QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("findings.txt"))));
}

QTEST_MAIN(TestDatasetReview)
#include "tst_dataset_review.moc"
