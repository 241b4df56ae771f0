// The state the views share: the open dataset, the pipeline (tokenizer, template, collator),
// the selected conversation and the batch it sits in. Views read it and react to its signals.
#pragma once
#include "core/collate/DatasetPipeline.h"
#include "core/data/Batch.h"
#include "core/data/DatasetReader.h"

#include <QObject>
#include <QString>
#include <QStringList>
#include <memory>
#include <vector>

namespace maskscope {

class Session : public QObject {
  Q_OBJECT
public:
  explicit Session(QObject* parent = nullptr);

  // Each returns false (and emits errorOccurred) when the input is unusable; state is unchanged then.
  bool openDataset(const QString& spec);
  bool setPipeline(const QString& tokenizerSpec, const QString& templateSpec, const QString& collatorSpec);
  bool setCollator(const QString& collatorSpec);
  void selectRow(int row);
  void setBatchSize(int rows);

  int rowCount() const { return int(conversations_.size()); }
  const Conversation& conversation(int row) const { return conversations_.at(size_t(row)); }
  int selectedRow() const { return selected_; }
  const QStringList& rowErrors() const { return rowErrors_; }
  QString datasetSpec() const { return datasetSpec_; }
  QString collatorSpec() const { return collatorSpec_; }
  int batchSize() const { return batchSize_; }

  bool hasBatch() const { return batch_.batchSize() > 0; }
  const Batch& batch() const { return batch_; }
  int batchRow() const { return batchRow_; } // the selected conversation's row in batch()
  // Tokenized selected conversation (its tokens' text and spans), or null.
  const TokenizedConversation* tokenized() const { return tokenized_.get(); }
  const DatasetPipeline* pipeline() const { return pipeline_.get(); }
  // Display text of a token id through the current tokenizer.
  QString tokenText(int64_t id) const;

Q_SIGNALS:
  void datasetChanged();
  void batchChanged();
  void errorOccurred(const QString& message);

private:
  void rebuildBatch();

  QString datasetSpec_;
  QString tokenizerSpec_ = QStringLiteral("builtin:demo");
  QString templateSpec_;
  QString collatorSpec_ = QStringLiteral("default");
  std::vector<Conversation> conversations_;
  QStringList rowErrors_;
  std::unique_ptr<DatasetPipeline> pipeline_;
  int selected_ = -1;
  int batchSize_ = 4;
  Batch batch_;
  int batchRow_ = 0;
  std::unique_ptr<TokenizedConversation> tokenized_;
};

} // namespace maskscope
