// The toolbar's pipeline pickers: tokenizer and chat template, then (a second bar) collator (a
// preset, or a framework with its version, options and batch / prepared toggle: FrameworkPicker)
// and batch rows. They set the session's pipeline and follow it back (a --collator on the command
// line, a teaching step, a lint jump); the collator picker is disabled for batch dumps.
#pragma once
#include <QToolBar>

class QAction;
class QComboBox;
class QMainWindow;
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
  // The second bar: collator (or framework) and batch rows. It shares the first bar's row while
  // both fit the window's width, and takes a row of its own below it otherwise (a 1024 px
  // projector, presenter mode's type, a framework's extra controls).
  QToolBar* batchBar() const { return batchBar_; }
  // Adds both bars to the window's top area (parent must be that window).
  void addTo(QMainWindow* window);
  // The pickers show the session's pipeline (without sending it back).
  void sync();

protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

private:
  static constexpr int kRowSlack = 8;     // px: the bars' handles and the area's margins
  static constexpr int kPickerChars = 16; // the template and collator pickers' width, in characters
  void fitRows();
  void connectControls();
  void syncTemplate();
  void syncBatchTip();

  Session* session_;
  TokenizerPicker* tokenizerBox_ = nullptr;
  QComboBox* templateBox_ = nullptr;
  QComboBox* collatorBox_ = nullptr;
  QAction* collatorAction_ = nullptr; // the preset box in the toolbar: hidden while a framework builds the batch
  FrameworkPicker* framework_ = nullptr;
  QString lastPreset_ = QStringLiteral("default"); // what "preset" in the framework picker goes back to
  QSpinBox* batchSize_ = nullptr;
  QToolBar* batchBar_ = nullptr;
};

} // namespace maskscope
