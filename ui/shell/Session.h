// The state the views share: the open dataset (or batch dump), the pipeline (tokenizer, template,
// collator), the selected row, the batch it sits in and the selected position. Views read it and
// react to its signals. Nothing here ever writes a user file.
// Framework mode (a framework spec as the collator, core/frameworks): the rows are the dataset's raw
// rows (text or pre-tokenized), the framework prepares them once per pipeline, and the batch is its
// collation of the prepared rows in the selected row's group (SessionFramework.cpp).
#pragma once
#include "core/collate/BatchAroundRow.h"
#include "core/collate/DatasetPipeline.h"
#include "core/data/Batch.h"
#include "core/data/DatasetIndex.h"
#include "core/data/DatasetReader.h"
#include "core/data/PreferenceRow.h"
#include "core/forward/LossPlan.h"
#include "core/forward/MaskLessons.h"
#include "core/frameworks/FrameworkRows.h"
#include "core/lint/Lint.h"
#include "core/lint/TokenizerFit.h"
#include "core/mask/EffectiveAttention.h"
#include "core/mask/MaskedLm.h"
#include "core/train/ExposureBias.h"

#include <QObject>
#include <QString>
#include <QStringList>
#include <map>
#include <memory>
#include <optional>
#include <vector>

namespace maskscope {

class FrameworkSource;
class PreparedFramework;
struct FrameworkRun;
struct FrameworkSpec;

class Session : public QObject {
  Q_OBJECT
public:
  enum class Source { None, Dataset, BatchDump };
  // What the row list shows in framework mode: the dataset's rows, or the framework's prepared rows.
  enum class Stage { Batch, Prepared };
  explicit Session(QObject* parent = nullptr);
  ~Session() override;
  // The tokenizer spec meaning "none": token ids are shown as ids (pre-tokenized rows of a framework).
  static QString noTokenizer() { return QStringLiteral("none"); }

  // Each returns false (and emits errorOccurred) when the input is unusable; state is unchanged then.
  bool openDataset(const QString& spec);
  // A batch a user's own collator produced: no conversations; rows are the batch's rows. Its ids go
  // through the tokenizer only when the tokenizer fits them (core/lint/TokenizerFit.h) or was chosen
  // for it (tokenizerChosen: the caller named it for this file, e.g. snapshot --tokenizer; or
  // setTokenizer / chooseDumpTokenizer while the dump is open). Until then the views show the ids
  // ("#151644"), lint runs without a tokenizer (as `maskscope lint DUMP` does without --tokenizer)
  // and dumpTokenizerNeeded() asks the window to offer the tokenizers that fit.
  bool openBatchDump(const QString& path, bool tokenizerChosen = false);
  // A model folder: its tokenizer and template; the folder is remembered as the model to load.
  bool openModelFolder(const QString& path);
  // Any of the above, chosen by what the path is (folder, batch dump, dataset).
  bool openPath(const QString& path);
  // An empty tokenizerSpec is the default (builtin:demo, or none for a framework's pre-tokenized
  // rows); any other is the user's choice and is kept.
  bool setPipeline(const QString& tokenizerSpec, const QString& templateSpec, const QString& collatorSpec);
  // Template variables (--var k=v, e.g. enable_thinking=false) for the pipelines made from now on.
  void setTemplateVariables(std::map<std::string, std::string> vars) { templateVariables_ = std::move(vars); }
  const std::map<std::string, std::string>& templateVariables() const { return templateVariables_; }
  bool setTokenizer(const QString& tokenizerSpec);
  bool setTemplate(const QString& templateSpec);
  // A preset, a collator JSON file, or a framework spec (inline JSON, a spec file, a framework's
  // config file): refused (errorOccurred, false) when unusable, never replaced by another.
  bool setCollator(const QString& collatorSpec);
  void selectRow(int row);
  void setBatchSize(int rows);
  // The position the strip, grid, softmax and loss views share; -1 = none. Clamped to the row.
  void selectPosition(int position);

  Source source() const { return source_; }
  bool isBatchDump() const { return source_ == Source::BatchDump; }
  // Rows the list shows: conversations of a dataset, or rows of a batch dump.
  int rowCount() const;
  QString rowTitle(int row, int firstChars = 60) const;
  // The list's tooltip: the title with the first message whole (capped at 2,000 characters), wrapped.
  QString rowToolTip(int row) const;
  bool hasConversations() const { return source_ == Source::Dataset && !isFramework() && !preTokenized_; }
  // A conversation row, read back from the file through the dataset's offset index (core/data/
  // DatasetIndex: the session never holds a text dataset's rows), or the preference rows' chosen
  // side. Throws Error when the file changed on disk since it was opened.
  Conversation conversation(int row) const;
  int conversationCount() const;
  // The dataset's offset index (null for preference data, a dump, pre-tokenized rows): what workers
  // stream the rows through (search, token lengths) without the session's help.
  std::shared_ptr<const DatasetIndex> datasetIndex() const { return index_; }
  // Says so when the open dataset file changed on disk since it was opened ("" when it did not).
  QString datasetChangedOnDisk() const;
  // Framework mode: the framework spec in use, its preparation (null until it succeeds) and the run
  // behind batch() (null when no batch). The list shows dataset rows (Stage::Batch) or prepared rows.
  bool isFramework() const { return framework_ != nullptr; }
  const FrameworkSpec* frameworkSpec() const;
  const PreparedFramework* preparedFramework() const;
  const FrameworkRun* frameworkRun() const { return run_.get(); }
  QString frameworkError() const; // why the framework has no prepared rows ("" when it has)
  // The selected dataset row read as a conversation (framework mode over text rows: the messages the
  // framework renders with its chat template); nullopt when it is none (token ids, TRL's "text", ...).
  std::optional<Conversation> frameworkConversation() const;
  void setStage(Stage stage);
  Stage stage() const { return stage_; }
  // The prepared row the selection falls in (framework mode; -1 otherwise or when it was dropped).
  int preparedRow() const { return preparedRow_; }
  // Selects a dataset row whatever the list shows (lint findings name dataset rows).
  void selectDatasetRow(long row);
  // The dataset's rows are token ids already (input_ids, prompt_ids, tokens, ...): a framework's.
  bool hasPreTokenizedRows() const { return preTokenized_; }
  bool hasTokenizer() const { return tokenizerSpec_ != noTokenizer(); }
  // The tokenizer of the batch's ids (null: ids shown as ids).
  std::shared_ptr<const Tokenizer> tokenizerPtr() const;
  // Preference data (prompt/chosen/rejected): the rows as pairs. The other views show each row's
  // chosen side as a prompt/completion conversation; the preference view shows both sides.
  bool isPreference() const { return !preferenceRows_.empty() && !isFramework(); }
  const PreferenceRow* preferenceRow(int row) const {
    return row >= 0 && size_t(row) < preferenceRows_.size() ? &preferenceRows_[size_t(row)] : nullptr;
  }
  int selectedRow() const { return selected_; }
  long selectedLine() const; // the dataset line of the selected row (-1: none)
  int selectedPosition() const { return position_; }
  const QStringList& rowErrors() const { return rowErrors_; }
  QString datasetSpec() const { return datasetSpec_; }
  QString tokenizerSpec() const { return tokenizerSpec_; }
  QString templateSpec() const { return templateSpec_; }
  QString collatorSpec() const { return collatorSpec_; }
  QString modelSpec() const { return modelSpec_; }
  void setModelSpec(const QString& spec);
  int batchSize() const { return batchSize_; }
  // Where Batch rows came from when a framework spec set it ("axolotl sets it: micro_batch_size 1
  // (Axolotl's default: ...)"); empty when the user chose it or no framework is active.
  QString batchSizeSource() const { return batchSizeSource_; }

  bool hasBatch() const { return batch_.batchSize() > 0; }
  const Batch& batch() const { return batch_; } // a dump: as read with its tokenizer (readDump) when decoded
  // The open dump as its file holds it (what `maskscope lint DUMP` reads); empty for a dataset.
  const Batch& dumpBatch() const { return dump_; }
  // The current tokenizer against the open dump (fits when no dump is open).
  const TokenizerFit& dumpFit() const { return dumpFit_; }
  // The open dump's ids are decoded with the current tokenizer: it fits, or it was chosen for the dump.
  bool decodesDump() const { return isBatchDump() && (dumpFit_.fits || dumpTokenizerChosen_); }
  bool needsDumpTokenizer() const { return isBatchDump() && !decodesDump(); }
  // The per-token losses the loss and compare views use while no model is loaded (one set for both).
  const ExampleLosses& exampleLosses() const { return exampleLosses_; }
  void setExampleLosses(const ExampleLosses& losses);
  // What lintBatch reads for the batch shown, by value or shared ownership (a worker may use it): the
  // pipeline's tokenizer, template, variables and (datasets) collator; a dump without a tokenizer
  // only the variables given, as `maskscope lint DUMP [--tokenizer T]` builds it.
  LintContext lintContext() const;
  // The batch lint reads: the dump as its file holds it, or the collated batch around the row.
  const Batch& lintInput() const { return isBatchDump() ? dump_ : batch_; }
  // Decodes the open dump with spec, fitting or not (the user chose it); false when it cannot load.
  bool chooseDumpTokenizer(const QString& spec);
  int batchRow() const { return batchRow_; } // the selected row's row in batch()
  // Tokenized selected conversation (its tokens' text and spans), or null.
  const TokenizedConversation* tokenized() const { return tokenized_.get(); }
  const DatasetPipeline* pipeline() const { return pipeline_.get(); }
  // Display text of a token id through the current tokenizer ("#id" when out of its range).
  QString tokenText(int64_t id) const;
  // A batch of the selected row's group under another collator (compare mode); throws Error.
  Batch collateWith(const QString& collatorSpec, int* batchRow) const;

  // The attention implementation the grid and the loss follow (SessionAttention.cpp): "" = what the batch
  // implies (core/mask/EffectiveAttention.h), else eager, sdpa, flash_attention_2 or flex_attention. An
  // unknown name is refused (errorOccurred, false) and the current choice kept.
  bool setAttnImplementation(const QString& name);
  QString attnImplementation() const { return attnName_; }
  const AttnChoice& attnChoice() const { return attnChoice_; }
  // The mask that implementation applies to batch(); null when transformers cannot run the batch under
  // it (attentionRule() then says why). Recomputed before views hear batchChanged().
  // With the BERT aside on, the bidirectional mask instead (the grid and softmax view draw it; a model run
  // keeps the causal one: modelBatch).
  const EffectiveMask* effectiveMask() const {
    return bidirectional_ ? &*bidirectional_ : effective_ ? &*effective_ : nullptr;
  }
  // "attention: sdpa (assumed: ...) - sdpa: attention_mask is all ones, ..." for the status line.
  QString attentionRule() const { return attentionRule_; }
  // Whether the implementation changes who attends whom in this batch: chosen by the user, or another
  // implementation gives a different mask (or cannot run it). The grid states its rule only then.
  bool attentionMatters() const { return attentionMatters_; }
  // batch() with the effective mask as its attention_mask (segment ids, EffectiveMask::segmentIdMask): what
  // a model run (forward, attention, loss) applies. batch() itself when there is none. Throws Error when a
  // 4-D mask is not block-diagonal.
  Batch modelBatch() const;

  // The masking lessons measured on the selected row (SessionLessons.cpp): ForwardModel::lessons on
  // the row alone as a batch of one (modelBatch's row), kept with the row they were measured on, so
  // they are shown only while that row is on screen (null otherwise, or before they are measured).
  const MaskLessons* rowLessons() const;
  QString rowLessonsError() const; // why the shown row has no lessons although measured ("" otherwise)
  // A model run hands in what it measured on rowBatch (a batch of one); rowLessonsChanged follows.
  void setRowLessons(const Batch& rowBatch, std::optional<MaskLessons> lessons, const QString& error);
  // A view wants the lessons of the selected row (the teaching step on -100): the model's side runs
  // them off the UI thread when a model is loaded (rowLessonsRequested).
  void requestRowLessons();

  // The BERT aside (the teaching step on BERT's mask; SessionMaskedLm.cpp): while on, the selected row
  // as BERT's masked language modelling would corrupt it (core/mask/MaskedLm.h, seed 0): the strip shows
  // [MASK] chips and BERT's labels, the grid the bidirectional mask. Off by default; batchChanged follows.
  void setMaskedLmAside(bool on);
  bool maskedLmAside() const { return maskedLmAside_; }
  const MaskedLmRow* maskedLm() const { return maskedLm_ ? &*maskedLm_ : nullptr; } // null while off

  // The Training lab's last finished run, measured on its held-out replies (exposure bias of both runs,
  // core/train/ExposureBias.h): the teaching step on teacher forcing quotes it. Null before a run ends.
  const ExposureReport* labExposure() const { return labExposure_ ? &*labExposure_ : nullptr; }
  void setLabExposure(const ExposureReport& report); // labExposureChanged follows

Q_SIGNALS:
  void datasetChanged();
  void pipelineChanged();
  void batchChanged();
  void positionChanged(int position);
  void rowsChanged(); // the rows the list shows changed (framework stage, prepared rows)
  void modelChanged(const QString& spec);
  void errorOccurred(const QString& message);
  // A dump was opened whose ids the current tokenizer does not fit: the window offers the ones that do.
  void dumpTokenizerNeeded();
  void exampleLossesChanged();
  void attentionChanged(); // the implementation or its effective mask changed
  void rowLessonsRequested();
  void rowLessonsChanged();
  void labExposureChanged();

private:
  void rebuildBatch();
  void judgeAttention();     // attnChoice_, effective_ and attentionRule_ for batch_ (SessionAttention.cpp)
  void judgeDumpTokenizer(); // dumpFit_ for the open dump and the current tokenizer
  void judgeMaskedLm();      // maskedLm_ and bidirectional_ for batch_ while the aside is on
  std::unique_ptr<DatasetPipeline> makePipeline(const QString& tok, const QString& tpl, const QString& col) const;
  // tokenizerSpec is final here (empty already replaced); chosen: the user's, kept as the default changes.
  bool applyPipeline(const QString& tokenizerSpec, const QString& templateSpec, const QString& collatorSpec,
                     bool chosen);
  QString conversationTitle(const Conversation& c, long index, int firstChars = 60) const;
  // SessionFramework.cpp
  void checkPresetAllowed(const QString& tokenizerSpec) const; // throws Error: presets need conversations
  bool reopensAsRows() const; // a JSON/JSONL batch dump is open: a framework reads it as rows
  bool reopenAsRows();
  void readRawRows();
  bool applyTokenizerDefault();         // builtin:demo, or none for pre-tokenized rows; true when it changed
  long conversationLine(int row) const; // its file line, from the index (no read)
  BatchAroundRow conversationBatch(const DatasetPipeline& pipeline, int row) const;
  void selectLine(long line); // selects the listed row holding that line (else the first)
  long selectedDatasetRow() const;
  bool prepareFramework(); // true when the prepared rows changed
  QString preparationKey() const;
  void rebuildFrameworkBatch();
  QString rawRowTitle(int row, int firstChars = 60) const;
  Batch collateFrameworkWith(const QString& collatorSpec, int* batchRow) const;

  Source source_ = Source::None;
  QString datasetSpec_;
  QString tokenizerSpec_ = QStringLiteral("builtin:demo");
  bool tokenizerChosen_ = false; // set by the user (or a command line), not the default
  QString templateSpec_;
  std::map<std::string, std::string> templateVariables_;
  QString collatorSpec_ = QStringLiteral("default");
  QString modelSpec_;
  std::shared_ptr<const DatasetIndex> index_; // a text dataset's rows: where they lie, never their text
  std::vector<Conversation> conversations_;   // preference data only: each pair's chosen side
  std::vector<PreferenceRow> preferenceRows_; // non-empty for preference data, parallel to conversations_
  Batch dump_;
  TokenizerFit dumpFit_;
  ExampleLosses exampleLosses_;
  bool dumpTokenizerChosen_ = false;
  QStringList rowErrors_;
  std::unique_ptr<DatasetPipeline> pipeline_;
  int selected_ = -1;
  int position_ = -1;
  int batchSize_ = 4;
  QString batchSizeSource_;
  Batch batch_;
  int batchRow_ = 0;
  std::unique_ptr<TokenizedConversation> tokenized_;
  // Framework mode
  std::unique_ptr<FrameworkSource> framework_;
  std::vector<InputRow> rawRows_; // the dataset's rows as a framework reads them (framework mode, pre-tokenized rows)
  bool preTokenized_ = false;
  QString preparedKey_; // preparationKey() of the framework's preparation
  Stage stage_ = Stage::Batch;
  int preparedRow_ = -1;
  std::shared_ptr<const FrameworkRun> run_;
  QString attnName_; // "" = implied
  AttnChoice attnChoice_;
  std::optional<EffectiveMask> effective_;
  bool maskedLmAside_ = false;
  std::optional<MaskedLmRow> maskedLm_;
  std::optional<ExposureReport> labExposure_;
  std::optional<EffectiveMask> bidirectional_;
  QString attentionRule_;
  bool attentionMatters_ = false;
  Batch lessonsRow_; // the row (a batch of one) rowLessons_ was measured on
  std::optional<MaskLessons> rowLessons_;
  QString rowLessonsError_;
};

} // namespace maskscope
