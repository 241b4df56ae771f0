// Every hostile file in tests/data/hostile, run through every command that accepts it as a user would:
// the program must refuse it (exit 2) within 5 s (or the case's own limit) and 1 GiB of address
// space, with a short error naming the file and the problem. A stack overflow (deep JSON or a long template chain)
// shows up here as a crash, a runaway allocation as a crash or "out of memory", a hang as a timeout.
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <sys/resource.h>

static const QString kHostile = QStringLiteral(MASKSCOPE_TEST_DATA_DIR "/hostile/");

class TestHostile : public QObject {
  Q_OBJECT
private Q_SLOTS:
  // Files too large to commit are written here at start (make_hostile.py describes them too).
  void initTestCase() {
    QVERIFY(generated_.isValid());
    // One 10 MiB line, unterminated string.
    write("long_line.jsonl", {"{\"messages\": \"", QByteArray(10 << 20, 'a'), "\n"});
    // A 100 MiB dataset row (over the 64 MiB row cap), and a 100 MiB JSONL dump line of ids.
    write("long_line_100mb.jsonl",
          {"{\"messages\": [{\"role\": \"user\", \"content\": \"", QByteArray(100 << 20, 'a'), "\"}]}\n"});
    QByteArray ids;
    ids.reserve(100 << 20);
    while (ids.size() < (100 << 20)) ids.append("1, ");
    write("batch_line_100mb.jsonl", {"{\"input_ids\": [", ids, "1], \"labels\": [1]}\n"});
    // 100 MiB of text in one --text-file: under the 1 GiB limit, encoding it whole runs out of
    // memory, and the error must still name the file.
    QByteArray words;
    words.reserve(100 << 20);
    while (words.size() < (100 << 20)) words.append("hello world padding mask ");
    write("text_100mb.txt", {words});
    // A 2 MiB template, over the 1 MiB template cap.
    write("too_large.jinja", {"{# ", QByteArray(2 << 20, 'x'), " #}"});
  }
  void refused_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("problem");
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<int>("limitMs");
    QFile cases(kHostile + QStringLiteral("cases.txt"));
    QVERIFY2(cases.open(QIODevice::ReadOnly), "tests/data/hostile/cases.txt is missing");
    int rows = 0;
    while (!cases.atEnd()) {
      const QString line = QString::fromUtf8(cases.readLine()).trimmed();
      if (line.isEmpty() || line.startsWith(QLatin1Char('#'))) continue;
      const QStringList cols = line.split(QLatin1Char('\t'));
      QVERIFY2(cols.size() == 4 || cols.size() == 5, qPrintable(QStringLiteral("bad cases.txt line: ") + line));
      QStringList args = cols[3].split(QLatin1Char(' '), Qt::SkipEmptyParts);
      for (QString& a : args)
        if (a.startsWith(QLatin1Char('@')))
          a = QFile::exists(kHostile + a.mid(1)) ? kHostile + a.mid(1) : generated_.filePath(a.mid(1));
      const int limitMs = cols.size() == 5 ? cols[4].toInt() : 5000;
      QVERIFY2(limitMs > 0, qPrintable(QStringLiteral("bad time limit: ") + line));
      QTest::newRow(qPrintable(cols[0])) << cols[1] << cols[2] << args << limitMs;
      ++rows;
    }
    QVERIFY(rows >= 300);
  }
  void refused() {
    QFETCH(QString, file);
    QFETCH(QString, problem);
    QFETCH(QStringList, args);
    QFETCH(int, limitMs);
    QProcess p;
    // 1 GiB of address space, as `ulimit -v 1048576` would set. Two malloc arenas: glibc reserves
    // 64 MiB of address space per arena and per thread, which the limit would count as use.
    p.setChildProcessModifier([] {
      const rlimit limit{rlim_t(1) << 30, rlim_t(1) << 30};
      setrlimit(RLIMIT_AS, &limit);
    });
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("MALLOC_ARENA_MAX"), QStringLiteral("2"));
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    p.setProcessEnvironment(env);
    p.setWorkingDirectory(generated_.path());
    QElapsedTimer clock;
    clock.start();
    p.start(QStringLiteral(MASKSCOPE_BINARY), args);
    const bool finished = p.waitForFinished(limitMs);
    if (!finished) {
      p.kill();
      p.waitForFinished();
      QFAIL(qPrintable(QStringLiteral("still running after %1 ms").arg(clock.elapsed())));
    }
    if (limitMs < 5000) qInfo("%s: %lld ms", QTest::currentDataTag(), static_cast<long long>(clock.elapsed()));
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
  void write(const char* name, const QList<QByteArray>& parts) {
    QFile f(generated_.filePath(QString::fromLatin1(name)));
    QVERIFY(f.open(QIODevice::WriteOnly));
    for (const QByteArray& part : parts) QVERIFY(f.write(part) == part.size());
  }

  QTemporaryDir generated_;
};

QTEST_GUILESS_MAIN(TestHostile)
#include "tst_hostile.moc"
