// The toolbar's framework picker, beside the collator presets: the framework ("preset" = maskscope's
// own collator presets), its version, "Options…" (brings the Framework view forward: its form holds
// the collator and every option, with the framework's names and defaults) and the batch / prepared
// toggle of the row list. Listed from the frameworks registry, so every framework of the build shows.
#pragma once
#include <QWidget>

class QComboBox;
class QToolButton;

namespace maskscope {

class Session;

class FrameworkPicker : public QWidget {
  Q_OBJECT
public:
  explicit FrameworkPicker(Session* session, QWidget* parent = nullptr);

  QComboBox* frameworkBox() const { return framework_; }
  QComboBox* versionBox() const { return version_; }
  QToolButton* optionsButton() const { return options_; }
  QToolButton* batchButton() const { return batch_; }
  QToolButton* preparedButton() const { return prepared_; }
  // The controls show the session's framework, version and stage (without sending them back).
  void sync();

Q_SIGNALS:
  void presetChosen();     // "preset" picked: the toolbar applies its collator preset
  void optionsRequested(); // "Options…": show the Framework view

private:
  void chooseFramework(int index);
  void chooseVersion(int index);

  Session* session_;
  QComboBox* framework_ = nullptr;
  QComboBox* version_ = nullptr;
  QToolButton* options_ = nullptr;
  QToolButton* batch_ = nullptr;
  QToolButton* prepared_ = nullptr;
};

} // namespace maskscope
