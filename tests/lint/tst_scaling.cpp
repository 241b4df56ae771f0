// Lint without cliffs: doubling a row's length (one padding-free dump row of the demo conversations
// packed back to back, read with builtin:demo; thousands of ChatML conversations packed naively, read
// with Qwen3's tokenizer) or a framework dataset's rows (pre-tokenized rows through TRL padding_free)
// costs at most 2.3x the time. Each size is timed as the CPU time of this
// process (user + system, so other load on the machine does not count), best of 7 taken in turn, both sizes in
// the same run. Each run starts from a heap handed back to the system (malloc_trim), as a fresh
// `maskscope lint` process does: without it the previous run's freed chunks made the larger size pay
// for longer free lists (2.25-2.35x in-process against 2.0x as processes). ctest runs this test alone
// (RUN_SERIAL). The full range (1k .. 128k tokens, 10k .. 1M rows) is bench/lint/scaling.sh's.
// A machine whose memory costs more the more of it a process holds (CI's VM: the rows case took 2.56x
// there, 2.03x here) shows it in a linear reference too: reading and parsing the same file into memory,
// timed the same way in the same run. The bound is 2.3x times that reference's excess over 2x, never less.
// A cliff shows in every measurement; the case is measured again (at most three times) when one fails.
#include "core/commands/BatchInputs.h"
#include "core/commands/CommandIO.h"
#include "core/commands/LintCommand.h"
#include "core/util/JsonParse.h"
#include "tests/TokenizerCacheRequired.h"

#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <ctime>
#include <fstream>
#include <functional>
#include <malloc.h>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

using namespace maskscope;

namespace {

double cpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

// Best of 7 CPU times of each of two runs of work, taken in turn (small, large, small, ...) so that
// a disturbance of the machine (caches, page faults, other processes' memory traffic) falls on both.
std::pair<double, double> bestOf7Alternating(const std::function<void()>& small, const std::function<void()>& large) {
  double best[2] = {1e30, 1e30};
  for (int i = 0; i < 7; ++i) {
    for (int which = 0; which < 2; ++which) {
      malloc_trim(0);
      const double start = cpuSeconds();
      (which == 0 ? small : large)();
      best[which] = std::min(best[which], cpuSeconds() - start);
    }
  }
  return {best[0], best[1]};
}

// One padding-free row of `tokens` tokens: the demo conversations as collated by builtin:demo,
// back to back, position_ids restarting at 0 per conversation (TRL padding_free's layout).
void writeLongRow(const std::string& path, int64_t tokens) {
  BatchInputs in;
  in.dataSpec = "builtin:demo";
  in.tokenizerSpec = "builtin:demo";
  const Batch demo = buildBatch(in);
  nlohmann::json ids = nlohmann::json::array(), labels = nlohmann::json::array(), pos = nlohmann::json::array();
  for (int64_t r = 0; int64_t(ids.size()) < tokens; r = (r + 1) % demo.batchSize()) {
    for (int64_t t = 0; t < demo.length() && int64_t(ids.size()) < tokens; ++t) {
      if (demo.attentionMask.at(r, t) == 0) break; // right padding ends the conversation
      ids.push_back(demo.inputIds.at(r, t));
      labels.push_back(t == 0 ? -100 : demo.labels.at(r, t));
      pos.push_back(t);
    }
  }
  nlohmann::json dump = {{"input_ids", {ids}}, {"labels", {labels}}, {"position_ids", {pos}}};
  std::ofstream(path, std::ios::binary) << dump.dump();
}

// One row of `tokens` tokens of ChatML conversations packed naively, as hand-rolled packing writes
// thousands of them (one attention block, positions running on, labels = input_ids): the Qwen3 ids of
// tests/data/lint/joins/chatml-newline-ids.json (conversations joined by "\n", id 198), repeated.
void writePackedChatml(const std::string& path, int64_t tokens) {
  std::ifstream in(MASKSCOPE_TEST_DATA_DIR "/lint/joins/chatml-newline-ids.json", std::ios::binary);
  const std::vector<int64_t> joined = nlohmann::json::parse(in).at("input_ids").at(0).get<std::vector<int64_t>>();
  std::vector<int64_t> ids;
  while (int64_t(ids.size()) < tokens) {
    if (!ids.empty()) ids.push_back(198);
    ids.insert(ids.end(), joined.begin(), joined.end());
  }
  ids.resize(size_t(tokens));
  std::vector<int64_t> pos(ids.size());
  for (size_t t = 0; t < pos.size(); ++t) pos[t] = int64_t(t);
  const nlohmann::json dump = {{"input_ids", {ids}}, {"labels", {ids}}, {"position_ids", {pos}}};
  std::ofstream(path, std::ios::binary) << dump.dump();
}

// `rows` pre-tokenized rows of 8 to 40 ids, half of each graded.
void writeRows(const std::string& path, int64_t rows) {
  std::mt19937 rng(37);
  std::ofstream out(path, std::ios::binary);
  for (int64_t i = 0; i < rows; ++i) {
    const int n = 8 + int(rng() % 33);
    nlohmann::json ids = nlohmann::json::array(), labels = nlohmann::json::array();
    for (int t = 0; t < n; ++t) {
      const int id = 5 + int(rng() % 3990);
      ids.push_back(id);
      labels.push_back(t < n / 2 ? -100 : id);
    }
    out << nlohmann::json{{"input_ids", ids}, {"labels", labels}}.dump() << "\n";
  }
}

// The linear reference: the file read and parsed (each line of a JSONL file, or the whole JSON), the
// values held until the end, as a reader that keeps its input would.
void parseAndHold(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<nlohmann::json> held;
  std::string line, error;
  if (path.ends_with(".jsonl")) {
    while (std::getline(in, line)) held.push_back(parseJsonOrExplain(line, &error));
  } else {
    std::ostringstream text;
    text << in.rdbuf();
    held.push_back(parseJsonOrExplain(text.str(), &error));
  }
  if (!error.empty() || held.empty()) qFatal("reference parse of %s: %s", path.c_str(), error.c_str());
}

int lint(const LintArgs& a) {
  std::ostringstream out, err;
  CommandIO io{out, err, true, false};
  const int rc = runCommand(io, [&] { return runLint(a, io); });
  if (rc == 2) qWarning("lint %s: %s", a.input.c_str(), err.str().c_str());
  return rc;
}

} // namespace

class TestScaling : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void doublingCostsAtMost2_3x_data() {
    QTest::addColumn<QString>("kind");
    QTest::addColumn<qint64>("size");
    QTest::newRow("row length 16k to 32k tokens") << QStringLiteral("long-row") << qint64(16000);
    // Thousands of ChatML conversations in one row, read with Qwen3's tokenizer (issue 33: role
    // recovery scanned the row's messages per conversation: 3.2x from 285k to 570k tokens).
    QTest::newRow("packed conversations 285k to 570k tokens") << QStringLiteral("packed-chatml") << qint64(285000);
    QTest::newRow("framework rows 20k to 40k") << QStringLiteral("rows") << qint64(20000);
  }

  void doublingCostsAtMost2_3x() {
    QFETCH(QString, kind);
    QFETCH(qint64, size);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    LintArgs args[2];
    for (int i = 0; i < 2; ++i) {
      const int64_t n = size << i;
      LintArgs& a = args[i];
      a.tokenizerSpec = "builtin:demo";
      if (kind == QLatin1String("packed-chatml")) {
        const std::string qwen3 = std::string(MASKSCOPE_TOKENIZER_CACHE) + "/qwen3";
        REQUIRE_TOKENIZER_CACHE(std::ifstream(qwen3 + "/tokenizer.json").good());
        a.tokenizerSpec = qwen3;
        a.input = dir.filePath(QStringLiteral("packed-%1.json").arg(n)).toStdString();
        writePackedChatml(a.input, n);
      } else if (kind == QLatin1String("long-row")) {
        a.input = dir.filePath(QStringLiteral("row-%1.json").arg(n)).toStdString();
        writeLongRow(a.input, n);
      } else {
        a.input = dir.filePath(QStringLiteral("rows-%1.jsonl").arg(n)).toStdString();
        writeRows(a.input, n);
        a.collatorSpec = R"({"framework": "trl", "version": "1.10", "pad_token_id": 0, "padding_free": true})";
      }
      QVERIFY(lint(a) != 2);
    }
    // Up to three measurements: a cliff shows in every one, a disturbance of the machine in one.
    double ratio = 0, bound = 0;
    for (int attempt = 1; attempt <= 3; ++attempt) {
      const auto [small, large] = bestOf7Alternating([&] { lint(args[0]); }, [&] { lint(args[1]); });
      ratio = large / std::max(small, 1e-6);
      const auto [refSmall, refLarge] =
          bestOf7Alternating([&] { parseAndHold(args[0].input); }, [&] { parseAndHold(args[1].input); });
      const double refRatio = refLarge / std::max(refSmall, 1e-6);
      bound = 2.3 * std::max(1.0, refRatio / 2.0);
      qInfo("%s (measurement %d): %.3f s CPU at %lld, %.3f s at %lld: %.2fx; reading and parsing alone %.3f s, "
            "%.3f s: %.2fx; bound %.2fx",
            qPrintable(kind), attempt, small, size, large, size * 2, ratio, refSmall, refLarge, refRatio, bound);
      if (ratio <= bound) break;
    }
    QVERIFY2(
        ratio <= bound,
        qPrintable(QStringLiteral("doubling costs %1x (at most %2x)").arg(ratio, 0, 'f', 2).arg(bound, 0, 'f', 2)));
  }
};

QTEST_GUILESS_MAIN(TestScaling)
#include "tst_scaling.moc"
