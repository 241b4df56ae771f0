// The toolbar's pipeline pickers: tokenizer, chat template, collator (a preset, or a framework with
// its version, options and batch / prepared toggle: FrameworkPicker) and batch rows. They set the
// session's pipeline and follow it back (a --collator on the command line, a teaching step, a lint
// jump); the collator picker is disabled for batch dumps, whose collator is unknown.
#pragma once
#include <QToolBar>

class QAction;
class QComboBox;
class QSpinBox;

namespace maskscope {

class FrameworkPicker;
class Session;
class TokenizerPicker;

class PipelineToolbar : public QToolBar {
  Q_OBJECT
public:
  // persistent: the tokenizer picker remembers recent tokenizers (the app, not snapshots or tests).
  PipelineToolbar(Session* session, bool persistent, QWidget* parent = nullptr);

  TokenizerPicker* tokenizerBox() const { return tokenizerBox_; }
  QComboBox* templateBox() const { return templateBox_; }
  QComboBox* collatorBox() const { return collatorBox_; }
  FrameworkPicker* frameworkPicker() const { return framework_; }
  QSpinBox* batchSizeBox() const { return batchSize_; }
  // The pickers show the session's pipeline (without sending it back).
  void sync();

private:
  void connectControls();
  void syncTemplate();

  Session* session_;
  TokenizerPicker* tokenizerBox_ = nullptr;
  QComboBox* templateBox_ = nullptr;
  QComboBox* collatorBox_ = nullptr;
  QAction* collatorAction_ = nullptr; // the preset box in the toolbar: hidden while a framework builds the batch
  FrameworkPicker* framework_ = nullptr;
  QString lastPreset_ = QStringLiteral("default"); // what "preset" in the framework picker goes back to
  QSpinBox* batchSize_ = nullptr;
};

} // namespace maskscope
