// Lints one collated 8-row demo batch (QBENCHMARK), next to the reference measured in the same run:
// collating those 8 rows from already tokenized conversations. Moved here from the lint tests, so
// speed lives in bench/ and the correctness suite stays quick.
#include "core/collate/DatasetPipeline.h"
#include "core/lint/Lint.h"

#include <QTest>

using namespace maskscope;

class BenchLintBatch : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void initTestCase() {
    PipelineSpec ps;
    pipeline_ = std::make_unique<DatasetPipeline>(ps);
    for (const Conversation& c : readDataset("builtin:demo", nullptr, 8)) rows_.push_back(pipeline_->encode(c));
    batch_ = pipeline_->collate(rows_);
  }
  void referenceCollate() {
    QBENCHMARK { batch_ = pipeline_->collate(rows_); }
  }
  void lintBatch() {
    LintContext ctx;
    QBENCHMARK { maskscope::lintBatch(batch_, ctx); }
  }

private:
  std::unique_ptr<DatasetPipeline> pipeline_;
  std::vector<TokenizedConversation> rows_;
  Batch batch_;
};

QTEST_GUILESS_MAIN(BenchLintBatch)
#include "bench_lint_batch.moc"
