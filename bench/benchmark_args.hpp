// Google Benchmark's command line with a program's own defaults: each default flag is added
// unless the user gave that flag, so any --benchmark_* on the command line wins.
#pragma once

#include <benchmark/benchmark.h>

#include <initializer_list>
#include <string>
#include <vector>

namespace bench {

// `args`: argv[0] and the arguments meant for Google Benchmark; `defaults`: "--benchmark_X=V"
// literals. Runs benchmark::Initialize; false when an argument is not recognised (Google
// Benchmark has said which).
inline bool init_benchmark(std::vector<char*> args, std::initializer_list<const char*> defaults) {
  const size_t given = args.size();
  for (const char* d : defaults) {
    const std::string flag = std::string(d).substr(0, std::string(d).find('='));
    bool present = false;
    for (size_t i = 1; i < given; ++i) present |= std::string(args[i]).rfind(flag, 0) == 0;
    if (!present) args.push_back(const_cast<char*>(d));  // a literal: lives as long as the program
  }
  int argc = static_cast<int>(args.size());
  args.push_back(nullptr);
  benchmark::Initialize(&argc, args.data());
  return !benchmark::ReportUnrecognizedArguments(argc, args.data());
}

}  // namespace bench
