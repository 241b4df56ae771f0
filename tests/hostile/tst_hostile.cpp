// Every hostile file in tests/data/hostile, run through the maskscope binary as a user would: the
// program must refuse it (exit 2) within 5 s, with a short error naming the file and the problem.
// A stack overflow (deep JSON or a long template chain) shows up here as a crash, not as exit 2.
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

static const QString kHostile = QStringLiteral(MASKSCOPE_TEST_DATA_DIR "/hostile/");

class TestHostile : public QObject {
  Q_OBJECT
private Q_SLOTS:
  // Files too large to commit are written here at start (make_hostile.py describes them too).
  void initTestCase() {
    QVERIFY(generated_.isValid());
    QFile f(generated_.filePath(QStringLiteral("long_line.jsonl"))); // one 10 MiB line, unterminated string
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("{\"messages\": \"");
    f.write(QByteArray(10 << 20, 'a'));
    f.write("\n");
  }
  void refused_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("problem");
    QTest::addColumn<QStringList>("args");
    QFile cases(kHostile + QStringLiteral("cases.txt"));
    QVERIFY2(cases.open(QIODevice::ReadOnly), "tests/data/hostile/cases.txt is missing");
    int rows = 0;
    while (!cases.atEnd()) {
      const QString line = QString::fromUtf8(cases.readLine()).trimmed();
      if (line.isEmpty() || line.startsWith(QLatin1Char('#'))) continue;
      const QStringList cols = line.split(QLatin1Char('\t'));
      QVERIFY2(cols.size() == 4, qPrintable(QStringLiteral("bad cases.txt line: ") + line));
      QStringList args = cols[3].split(QLatin1Char(' '), Qt::SkipEmptyParts);
      for (QString& a : args)
        if (a.startsWith(QLatin1Char('@')))
          a = QFile::exists(kHostile + a.mid(1)) ? kHostile + a.mid(1) : generated_.filePath(a.mid(1));
      QTest::newRow(qPrintable(cols[0])) << cols[1] << cols[2] << args;
      ++rows;
    }
    QVERIFY(rows >= 20);
  }
  void refused() {
    QFETCH(QString, file);
    QFETCH(QString, problem);
    QFETCH(QStringList, args);
    QProcess p;
    QElapsedTimer clock;
    clock.start();
    p.start(QStringLiteral(MASKSCOPE_BINARY), args);
    const bool finished = p.waitForFinished(5000);
    if (!finished) {
      p.kill();
      p.waitForFinished();
      QFAIL(qPrintable(QStringLiteral("still running after %1 ms").arg(clock.elapsed())));
    }
    const QString err = QString::fromUtf8(p.readAllStandardError());
    QVERIFY2(p.exitStatus() == QProcess::NormalExit, qPrintable(QStringLiteral("crashed: ") + err.left(500)));
    QVERIFY2(p.exitCode() == 2, qPrintable(QStringLiteral("exit %1: ").arg(p.exitCode()) + err.left(500)));
    QVERIFY2(err.contains(file),
             qPrintable(QStringLiteral("stderr does not name ") + file + QStringLiteral(": ") + err.left(500)));
    QVERIFY2(err.contains(problem),
             qPrintable(QStringLiteral("stderr does not say \"") + problem + QStringLiteral("\": ") + err.left(500)));
    QVERIFY2(err.size() < 2000, qPrintable(QStringLiteral("stderr is %1 characters long").arg(err.size())));
  }

private:
  QTemporaryDir generated_;
};

QTEST_GUILESS_MAIN(TestHostile)
#include "tst_hostile.moc"
