// Finding a CUDA library (cuBLAS, cuFFT) at run time: the folders it is looked for in, in order
// (CUDA_PATH, /usr/local/cuda, then the loader path), and the first file of its names that opens.
// The tables of each library (cublas.hpp, cufft.hpp) are filled from what this opens.
#pragma once
#include <string>
#include <vector>

namespace rxcuda::lib {

// What was found of one library, and what it took: process-wide, filled once.
struct Found {
  void* handle = nullptr;             // dlopen's; null when nothing opened
  std::string path;                   // the file that was opened (its real path where known)
  std::vector<std::string> searched;  // every file tried, in order, up to the one that opened
  std::string problem;                // why the library cannot be used; empty when it can
};

// Opens the first of `names` (newest first) in each folder in turn. `companion` (a library that
// `names` needs beside it, e.g. cuBLASLt for cuBLAS) is opened from the same folder first, so that
// a folder not on the loader path still serves both. `what` names the library in `problem`.
Found open(const char* what, const std::vector<std::string>& names, const char* companion = nullptr);

// Resolves `symbol` in a found library; null when it lacks it (then `missing` names it).
void* resolve(const Found& found, const char* symbol, std::string& missing);

}  // namespace rxcuda::lib
