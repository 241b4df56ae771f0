// `maskscope collate --json`: the contract's keys in the contract's order, [B, T] lists of ints,
// for every preset; unusable input gives exit 2 with a message naming it.
#include "core/collate/CollatorSpec.h"
#include "core/commands/CollateCommand.h"

#include <QtTest>

#include <sstream>

using namespace maskscope;

class TestCollateCommand : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void contractJson_data();
  void contractJson();
  void badInput_data();
  void badInput();
  void rowRanges();
};

void TestCollateCommand::contractJson_data() {
  QTest::addColumn<QString>("collator");
  for (const CollatorPreset& p : collatorPresets()) QTest::newRow(p.name.c_str()) << QString::fromStdString(p.name);
}

void TestCollateCommand::contractJson() {
  QFETCH(QString, collator);
  BatchInputs in;
  in.dataSpec = "builtin:demo";
  in.tokenizerSpec = "builtin:demo";
  in.collatorSpec = collator.toStdString();
  in.rowBegin = 0;
  in.rowEnd = 4;
  std::ostringstream out, err;
  CommandIO io{out, err, true};
  QCOMPARE(runCommand(io, [&] { return runCollate(in, io); }), 0);
  const std::string text = out.str();
  // Keys in contract order, nothing else on stdout.
  const size_t a = text.find("\"input_ids\""), b = text.find("\"attention_mask\""), c = text.find("\"labels\""),
               d = text.find("\"position_ids\"");
  QVERIFY(a == 1 && a < b && b < c && c < d);
  auto j = nlohmann::json::parse(text);
  QCOMPARE(j.size(), size_t(4));
  const size_t rows = j["input_ids"].size();
  QVERIFY(rows >= 1);
  const size_t cols = j["input_ids"][0].size();
  for (const char* key : {"input_ids", "attention_mask", "labels", "position_ids"}) {
    QCOMPARE(j[key].size(), rows);
    for (const auto& row : j[key]) {
      QCOMPARE(row.size(), cols);
      for (const auto& v : row) QVERIFY(v.is_number_integer());
    }
  }
}

void TestCollateCommand::badInput_data() {
  QTest::addColumn<QString>("collator");
  QTest::addColumn<QString>("data");
  QTest::addColumn<QString>("mentions");
  QTest::newRow("unknown-preset") << QStringLiteral("nope") << QStringLiteral("builtin:demo") << QStringLiteral("nope");
  QTest::newRow("missing-data") << QStringLiteral("default") << QStringLiteral("/nonexistent/data.jsonl")
                                << QStringLiteral("/nonexistent/data.jsonl");
}

void TestCollateCommand::badInput() {
  QFETCH(QString, collator);
  QFETCH(QString, data);
  QFETCH(QString, mentions);
  BatchInputs in;
  in.dataSpec = data.toStdString();
  in.collatorSpec = collator.toStdString();
  std::ostringstream out, err;
  CommandIO io{out, err, true};
  QCOMPARE(runCommand(io, [&] { return runCollate(in, io); }), 2);
  QVERIFY(out.str().empty());
  QVERIFY2(QString::fromStdString(err.str()).contains(mentions), err.str().c_str());
}

void TestCollateCommand::rowRanges() {
  long b = -1, e = -1;
  parseRowRange("0:4", b, e);
  QCOMPARE(b, 0L);
  QCOMPARE(e, 4L);
  parseRowRange("3", b, e);
  QCOMPARE(b, 3L);
  QCOMPARE(e, 4L);
  parseRowRange("5:", b, e);
  QCOMPARE(e, -1L);
  QVERIFY_THROWS_EXCEPTION(std::exception, parseRowRange("4:2", b, e));
}

QTEST_GUILESS_MAIN(TestCollateCommand)
#include "tst_collate_command.moc"
