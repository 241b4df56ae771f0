# The LibTorch module's sources, shared by engine/CMakeLists.txt (the product build) and the Qt-free
# GPU-machine build (tools/cuda/CMakeLists.txt), so the two source lists cannot drift. Add new
# engine/*.cpp files here, not in either CMakeLists.txt.
get_filename_component(_maskscope_root "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
set(MASKSCOPE_TORCH_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/SafetensorsView.cpp ${_maskscope_root}/core/forward/ModelConfig.cpp
  ${CMAKE_CURRENT_LIST_DIR}/InputChecks.cpp ${CMAKE_CURRENT_LIST_DIR}/TransformerModel.cpp
  ${CMAKE_CURRENT_LIST_DIR}/TorchEngine.cpp ${CMAKE_CURRENT_LIST_DIR}/TorchModel.cpp
  ${CMAKE_CURRENT_LIST_DIR}/LossAnalysis.cpp ${CMAKE_CURRENT_LIST_DIR}/TorchBatchFile.cpp
  ${CMAKE_CURRENT_LIST_DIR}/Trainer.cpp ${CMAKE_CURRENT_LIST_DIR}/ChunkedAttention.cpp
  ${CMAKE_CURRENT_LIST_DIR}/LogitsHead.cpp ${CMAKE_CURRENT_LIST_DIR}/Lessons.cpp)
# The sources that include no torch header: compiled without the <torch/torch.h> precompiled header.
set(MASKSCOPE_TORCH_PLAIN_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/SafetensorsView.cpp ${_maskscope_root}/core/forward/ModelConfig.cpp
  ${CMAKE_CURRENT_LIST_DIR}/InputChecks.cpp)
# The core/util files the module uses (the product build links all of maskscope_util; the GPU build
# compiles only these).
set(MASKSCOPE_TORCH_UTIL_SOURCES
  ${_maskscope_root}/core/util/Error.cpp ${_maskscope_root}/core/util/FileReading.cpp
  ${_maskscope_root}/core/util/JsonParse.cpp ${_maskscope_root}/core/util/SafetensorsLayout.cpp
  ${_maskscope_root}/core/util/Utf8.cpp)

# Build settings both builds give the module: the precompiled torch header, hidden symbols (only the
# factory is exported), and MASKSCOPE_TORCH_CUDA where LibTorch has CUDA (the caching allocator's
# peak-memory statistics in ForwardOutput / LossReport::peakDeviceMemoryMiB; 0 without CUDA, or when
# configured with -DMASKSCOPE_NO_DEVICE_STATS=ON).
function(maskscope_torch_module_settings target)
  target_precompile_headers(${target} PRIVATE <torch/torch.h>)
  set_source_files_properties(${MASKSCOPE_TORCH_PLAIN_SOURCES} PROPERTIES SKIP_PRECOMPILE_HEADERS ON)
  set_target_properties(${target} PROPERTIES CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
  if((TORCH_CUDA_LIBRARIES OR TARGET torch_cuda) AND NOT MASKSCOPE_NO_DEVICE_STATS)
    target_compile_definitions(${target} PRIVATE MASKSCOPE_TORCH_CUDA=1)
  endif()
endfunction()
