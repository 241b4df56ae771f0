// The state the views share: the open dataset (or batch dump), the pipeline (tokenizer, template,
// collator), the selected row, the batch it sits in and the selected position. Views read it and
// react to its signals. Nothing here ever writes a user file.
#pragma once
#include "core/collate/DatasetPipeline.h"
#include "core/data/Batch.h"
#include "core/data/DatasetReader.h"
#include "core/data/PreferenceRow.h"

#include <QObject>
#include <QString>
#include <QStringList>
#include <map>
#include <memory>
#include <vector>

namespace maskscope {

class Session : public QObject {
  Q_OBJECT
public:
  enum class Source { None, Dataset, BatchDump };
  explicit Session(QObject* parent = nullptr);

  // Each returns false (and emits errorOccurred) when the input is unusable; state is unchanged then.
  bool openDataset(const QString& spec);
  // A batch a user's own collator produced: no conversations; rows are the batch's rows.
  bool openBatchDump(const QString& path);
  // A model folder: its tokenizer and template; the folder is remembered as the model to load.
  bool openModelFolder(const QString& path);
  // Any of the above, chosen by what the path is (folder, batch dump, dataset).
  bool openPath(const QString& path);
  bool setPipeline(const QString& tokenizerSpec, const QString& templateSpec, const QString& collatorSpec);
  // Template variables (--var k=v, e.g. enable_thinking=false) for the pipelines made from now on.
  void setTemplateVariables(std::map<std::string, std::string> vars) { templateVariables_ = std::move(vars); }
  bool setTokenizer(const QString& tokenizerSpec);
  bool setTemplate(const QString& templateSpec);
  bool setCollator(const QString& collatorSpec);
  void selectRow(int row);
  void setBatchSize(int rows);
  // The position the strip, grid, softmax and loss views share; -1 = none. Clamped to the row.
  void selectPosition(int position);

  Source source() const { return source_; }
  bool isBatchDump() const { return source_ == Source::BatchDump; }
  // Rows the list shows: conversations of a dataset, or rows of a batch dump.
  int rowCount() const;
  QString rowTitle(int row) const;
  bool hasConversations() const { return source_ == Source::Dataset; }
  const Conversation& conversation(int row) const { return conversations_.at(size_t(row)); }
  // Preference data (prompt/chosen/rejected): the rows as pairs. The other views show each row's
  // chosen side as a prompt/completion conversation; the preference view shows both sides.
  bool isPreference() const { return !preferenceRows_.empty(); }
  const PreferenceRow* preferenceRow(int row) const {
    return row >= 0 && size_t(row) < preferenceRows_.size() ? &preferenceRows_[size_t(row)] : nullptr;
  }
  int selectedRow() const { return selected_; }
  int selectedPosition() const { return position_; }
  const QStringList& rowErrors() const { return rowErrors_; }
  QString datasetSpec() const { return datasetSpec_; }
  QString tokenizerSpec() const { return tokenizerSpec_; }
  QString templateSpec() const { return templateSpec_; }
  QString collatorSpec() const { return collatorSpec_; }
  QString modelSpec() const { return modelSpec_; }
  void setModelSpec(const QString& spec);
  int batchSize() const { return batchSize_; }

  bool hasBatch() const { return batch_.batchSize() > 0; }
  const Batch& batch() const { return batch_; }
  int batchRow() const { return batchRow_; } // the selected row's row in batch()
  // Tokenized selected conversation (its tokens' text and spans), or null.
  const TokenizedConversation* tokenized() const { return tokenized_.get(); }
  const DatasetPipeline* pipeline() const { return pipeline_.get(); }
  // Display text of a token id through the current tokenizer ("#id" when out of its range).
  QString tokenText(int64_t id) const;
  // A batch of the selected row's group under another collator (compare mode); throws Error.
  Batch collateWith(const QString& collatorSpec, int* batchRow) const;

Q_SIGNALS:
  void datasetChanged();
  void pipelineChanged();
  void batchChanged();
  void positionChanged(int position);
  void modelChanged(const QString& spec);
  void errorOccurred(const QString& message);

private:
  void rebuildBatch();
  std::unique_ptr<DatasetPipeline> makePipeline(const QString& tok, const QString& tpl, const QString& col) const;

  Source source_ = Source::None;
  QString datasetSpec_;
  QString tokenizerSpec_ = QStringLiteral("builtin:demo");
  QString templateSpec_;
  std::map<std::string, std::string> templateVariables_;
  QString collatorSpec_ = QStringLiteral("default");
  QString modelSpec_;
  std::vector<Conversation> conversations_;
  std::vector<PreferenceRow> preferenceRows_; // non-empty for preference data, parallel to conversations_
  Batch dump_;
  QStringList rowErrors_;
  std::unique_ptr<DatasetPipeline> pipeline_;
  int selected_ = -1;
  int position_ = -1;
  int batchSize_ = 4;
  Batch batch_;
  int batchRow_ = 0;
  std::unique_ptr<TokenizedConversation> tokenized_;
};

} // namespace maskscope
