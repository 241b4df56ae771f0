# The one INTERFACE target that carries the project's shared build settings.
# Every maskscope target links maskscope_settings: C++20, warnings, Qt strict defines, sanitizers.
add_library(maskscope_settings INTERFACE)
target_compile_features(maskscope_settings INTERFACE cxx_std_20)
set(CMAKE_CXX_EXTENSIONS OFF)
target_compile_options(maskscope_settings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wno-missing-field-initializers>)
target_compile_definitions(maskscope_settings INTERFACE
  QT_NO_CAST_FROM_ASCII QT_NO_CAST_TO_ASCII QT_NO_URL_CAST_FROM_STRING
  QT_NO_CAST_FROM_BYTEARRAY QT_NO_NARROWING_CONVERSIONS_IN_CONNECT
  QT_NO_KEYWORDS QT_USE_QSTRINGBUILDER QT_STRICT_ITERATORS
  MASKSCOPE_VERSION="${PROJECT_VERSION}")
if(MASKSCOPE_FATAL_WARNINGS)
  target_compile_options(maskscope_settings INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-Werror>)
endif()
if(MASKSCOPE_SANITIZE)
  # GCC 12 under -fsanitize reports std::optional<std::string> members of default-built structs as
  # maybe-uninitialized (core/template/TrainingTemplate.cpp, RenderOptions::now): a false positive
  # that FATAL_WARNINGS would turn into a failed sanitizer build.
  target_compile_options(maskscope_settings INTERFACE -fsanitize=address,undefined -fno-omit-frame-pointer
    $<$<CXX_COMPILER_ID:GNU>:-Wno-maybe-uninitialized>)
  target_link_options(maskscope_settings INTERFACE -fsanitize=address,undefined)
endif()
