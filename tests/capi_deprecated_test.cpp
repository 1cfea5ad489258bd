// The deprecated names of abloom.h's last section still work: each is declared, exported (the
// exports check finds every ABLOOM_API name), and answers as its new name does:
//   abloom_isa_active = abloom_get_isa, abloom_isa_force = abloom_set_isa,
//   abloom_writer_mode = abloom_get_writer_mode, abloom_threads = abloom_get_threads.
// Every other caller in the project uses the new names; this file alone calls the old ones.

#include <abloom.h>
#include <gtest/gtest.h>

#include <cstdint>

#include "capi_test_support.hpp"

// The calls below use the deprecated names on purpose: the warning ABLOOM_DEPRECATED gives them
// is for programs that do so by accident.
#if defined(__GNUC__) || defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#elif defined(_MSC_VER)
#pragma warning(push)
#pragma warning(disable : 4996)
#endif

namespace {

using capi_test::Filter;
using capi_test::IsaRestore;
using capi_test::Make;
using capi_test::Options;
using capi_test::RunnableIsas;

TEST(CapiDeprecatedNames, IsaActiveAndForceAreGetAndSetIsa) {
  const IsaRestore restore;
  EXPECT_EQ(abloom_isa_active(), abloom_get_isa());
  for (uint32_t isa : RunnableIsas()) {
    ASSERT_EQ(abloom_isa_force(isa), ABLOOM_OK) << abloom_isa_name(isa);
    EXPECT_EQ(abloom_get_isa(), isa);
    EXPECT_EQ(abloom_isa_active(), isa);
    ASSERT_EQ(abloom_set_isa(ABLOOM_ISA_SCALAR), ABLOOM_OK);
    EXPECT_EQ(abloom_isa_active(), ABLOOM_ISA_SCALAR);
  }
  EXPECT_EQ(abloom_isa_force(99), ABLOOM_ERR_INVALID);
  EXPECT_EQ(abloom_isa_force(99), abloom_set_isa(99));
}

TEST(CapiDeprecatedNames, WriterModeIsGetWriterMode) {
  EXPECT_EQ(abloom_writer_mode(nullptr), ABLOOM_ERR_NULL);
  Filter f = Make(Options(1000));
  EXPECT_EQ(abloom_writer_mode(f.get()), static_cast<int>(ABLOOM_WRITER_SHARED));
  ASSERT_EQ(abloom_set_writer_mode(f.get(), ABLOOM_WRITER_EXCLUSIVE), ABLOOM_OK);
  EXPECT_EQ(abloom_writer_mode(f.get()), static_cast<int>(ABLOOM_WRITER_EXCLUSIVE));
  EXPECT_EQ(abloom_writer_mode(f.get()), abloom_get_writer_mode(f.get()));
}

TEST(CapiDeprecatedNames, ThreadsIsGetThreads) {
  EXPECT_EQ(abloom_threads(nullptr), ABLOOM_ERR_NULL);
  Filter f = Make(Options(1000));
  EXPECT_EQ(abloom_threads(f.get()), 1);
  ASSERT_EQ(abloom_set_threads(f.get(), 4), ABLOOM_OK);
  EXPECT_EQ(abloom_threads(f.get()), 4);
  EXPECT_EQ(abloom_threads(f.get()), abloom_get_threads(f.get()));
}

}  // namespace

#if defined(__GNUC__) || defined(__clang__)
#pragma GCC diagnostic pop
#elif defined(_MSC_VER)
#pragma warning(pop)
#endif
