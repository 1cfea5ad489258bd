// core/model/ddmath.hpp against a 300-bit reference (tests/tools/ddmath_reference.py, mpmath): the
// model's stored doubles are these functions' results, so they must be the correctly rounded value
// (hi; the reference skips inputs within 2^-90 of a midpoint) with a double-double remainder (lo)
// as accurate as ddmath.hpp says. Plain IEEE operations, so the same on every machine: CI runs this
// on x86-64 and aarch64 with glibc, and on x86-64 with musl.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

#include "model/ddmath.hpp"

namespace abloom {
namespace {

enum class Fn { kExp, kExpm1, kLog, kLog1p, kPow };

struct Reference {
  Fn fn;
  double x;
  uint32_t k;  // kPow only
  double hi;   // the true value rounded to double
  double lo;   // the true value minus hi, rounded to double
};

// clang-format off
constexpr Reference kReferences[] = {
    {Fn::kExp, -0x1.2c00000000000p+9, 0, 0x1.4dd4d0d12c071p-866, 0x1.2167a13398003p-921},
    {Fn::kExp, -0x1.62ccccccccccdp+6, 0, 0x1.05ea01ebcec78p-128, 0x1.c22bfffea3f9cp-182},
    {Fn::kExp, -0x1.e000000000000p+4, 0, 0x1.a56e0c2ac7f75p-44, -0x1.578158e15ff84p-99},
    {Fn::kExp, -0x1.0000000000000p+0, 0, 0x1.78b56362cef38p-2, -0x1.ca8a4270fadf5p-57},
    {Fn::kExp, -0x1.0000000000000p-1, 0, 0x1.368b2fc6f960ap-1, -0x1.85314b9559e64p-61},
    {Fn::kExp, -0x1.0000000000000p-11, 0, 0x1.ffc003ffd556bp-1, -0x1.57776c16f56e8p-55},
    {Fn::kExp, 0x0.0p+0, 0, 0x1.0000000000000p+0, 0x0.0p+0},
    {Fn::kExp, 0x1.0000000000000p-30, 0, 0x1.0000000400000p+0, 0x1.0000000155555p-61},
    {Fn::kExp, 0x1.62e42fead449cp-2, 0, 0x1.6a09e66640654p+0, 0x1.6a7642e888b68p-55},
    {Fn::kExp, 0x1.0000000000000p+0, 0, 0x1.5bf0a8b145769p+1, 0x1.4d57ee2b1013ap-53},
    {Fn::kExp, 0x1.5e00000000000p+9, 0, 0x1.d945df4f8ec8ep+1009, 0x1.183392684a46ep+954},
    {Fn::kExp, -0x1.8e36f46dc99b8p+5, 0, 0x1.23789d9884f08p-72, -0x1.9d99cb70f4532p-126},
    {Fn::kExp, -0x1.4865dcbe49308p+5, 0, 0x1.b6e6508f39d0bp-60, -0x1.a9c15e923663bp-116},
    {Fn::kExp, -0x1.eeb625be1890cp+3, 0, 0x1.9ed0206b3bf75p-23, 0x1.d33b53e780ecbp-79},
    {Fn::kExp, -0x1.9f428bc6efde0p+5, 0, 0x1.14eb1b376c1b7p-75, 0x1.88eb083924488p-131},
    {Fn::kExp, -0x1.d1d26da120ab9p+4, 0, 0x1.ff225934f9bafp-43, -0x1.7151c68311ba9p-97},
    {Fn::kExp, -0x1.aa95e19f2d112p+4, 0, 0x1.730bb61ad6a80p-39, 0x1.25c3ea19450c6p-94},
    {Fn::kExp, -0x1.dbd8a8919b356p+5, 0, 0x1.238059bd12f5dp-86, -0x1.97c2ee609b186p-140},
    {Fn::kExp, -0x1.f12c1065f3851p+4, 0, 0x1.202af10e08d00p-45, 0x1.736346809b1acp-99},
    {Fn::kExp, -0x1.ce5f7f30e2dfdp+5, 0, 0x1.88a5a9a999ed5p-84, -0x1.0bb22eb598aeep-139},
    {Fn::kExp, -0x1.3d5a0f542deaap+5, 0, 0x1.b47a8614fb5e4p-58, 0x1.9ee12546e1b1cp-117},
    {Fn::kExp, -0x1.9641522084036p+5, 0, 0x1.aabd534ff462cp-74, -0x1.bc8659cb3d636p-128},
    {Fn::kExp, -0x1.bb77a047b8058p+5, 0, 0x1.04be92978c5fbp-80, 0x1.97beee1516456p-134},
    {Fn::kExp, -0x1.bf57e47426346p+5, 0, 0x1.413cf9c0cb21fp-81, 0x1.17ff7b013b487p-138},
    {Fn::kExp, -0x1.3d1e21e90f9c6p+5, 0, 0x1.c17075cea7b3ep-58, -0x1.b200cdfd909a2p-112},
    {Fn::kExp, -0x1.3720d66dc8a7ep+4, 0, 0x1.ed34f4f0ef017p-29, 0x1.40913e42782e3p-83},
    {Fn::kExp, -0x1.2adc349e9aff6p+5, 0, 0x1.133a9651a5398p-54, 0x1.51fea184557ccp-109},
    {Fn::kExpm1, -0x1.0000000000000p-40, 0, -0x1.ffffffffff000p-41, -0x1.5555555555000p-123},
    {Fn::kExpm1, 0x1.0000000000000p-40, 0, 0x1.0000000000800p-40, 0x1.5555555555aabp-123},
    {Fn::kExpm1, -0x1.ff7ced916872bp-11, 0, -0x1.ff3d13a2bb2f1p-11, 0x1.24ab2f3847c6cp-66},
    {Fn::kExpm1, 0x1.ff7ced916872bp-11, 0, 0x1.ffbcd222915b4p-11, 0x1.20889075e2acep-66},
    {Fn::kExpm1, -0x1.0000000000000p-10, 0, -0x1.ffc0055500044p-11, -0x1.05b0c308f0a62p-65},
    {Fn::kExpm1, 0x1.0000000000000p-10, 0, 0x1.002002aad5577p-10, 0x1.e38e6ce86e927p-64},
    {Fn::kExpm1, -0x1.0000000000000p-9, 0, -0x1.ff801552aaeefp-10, 0x1.b04105b043e8fp-64},
    {Fn::kExpm1, -0x1.5555555555555p-1, 0, -0x1.f242c86231a43p-2, -0x1.f57cdc28f6982p-56},
    {Fn::kExpm1, -0x1.b031d392270f0p-11, 0, -0x1.b0043c43fba5dp-11, -0x1.542873cfc0231p-65},
    {Fn::kExpm1, -0x1.cfa18ca25a611p-11, 0, -0x1.cf6d15fbdfeddp-11, 0x1.5bba21a2a0adep-67},
    {Fn::kExpm1, -0x1.16c76e277a55bp-10, 0, -0x1.16a17ee1035fep-10, -0x1.bd94145aace6fp-66},
    {Fn::kExpm1, -0x1.bef41406a5400p-11, 0, -0x1.bec3521cd158ap-11, -0x1.8574f4fe6de64p-65},
    {Fn::kExpm1, -0x1.9224639b8a633p-11, 0, -0x1.91fceacc1896cp-11, -0x1.930859339b3bfp-70},
    {Fn::kExpm1, -0x1.60b2cec1a67f1p-10, 0, -0x1.607618339e3a0p-10, 0x1.91b835f34271fp-64},
    {Fn::kExpm1, -0x1.6cae1a53c15ebp+4, 0, -0x1.fffffffeea4dbp-1, -0x1.858717704ef8cp-57},
    {Fn::kExpm1, -0x1.5a6afc389f90cp+2, 0, -0x1.fdb7852c4aa25p-1, -0x1.0d6f1a1d29936p-55},
    {Fn::kExpm1, -0x1.2f214ebdec23ep+4, 0, -0x1.ffffffcd2eec2p-1, -0x1.d3e2625441772p-56},
    {Fn::kExpm1, -0x1.be5494401019ap+3, 0, -0x1.ffffe29aa6dc6p-1, 0x1.9e08a4ded0340p-55},
    {Fn::kExpm1, -0x1.64d5c15dc33c0p+3, 0, -0x1.fffe1e2c23af7p-1, -0x1.9029dd459f49ep-56},
    {Fn::kExpm1, -0x1.2c9ca605d4b64p+4, 0, -0x1.ffffffc48589ap-1, -0x1.b66e13a29674ep-55},
    {Fn::kExpm1, -0x1.2e3daa281772cp+5, 0, -0x1.0000000000000p+0, 0x1.68bdeb6df921ep-55},
    {Fn::kExpm1, -0x1.11c918da5b7c3p+4, 0, -0x1.fffffec1eeef3p-1, -0x1.54038311da2e9p-55},
    {Fn::kExpm1, -0x1.18f35977db041p+3, 0, -0x1.ffebd68b8efc6p-1, 0x1.61da424d6b3cbp-55},
    {Fn::kExpm1, -0x1.92e2b63f93e7ep+1, 0, -0x1.ea0179048bf2dp-1, 0x1.b660d1c21d2f1p-56},
    {Fn::kLog, 0x1.0000000000000p+1, 0, 0x1.62e42fefa39efp-1, 0x1.abc9e3b39803fp-56},
    {Fn::kLog, 0x1.8000000000000p+1, 0, 0x1.193ea7aad030bp+0, -0x1.a256f99caabebp-54},
    {Fn::kLog, 0x1.f000000000000p+4, 0, 0x1.b78ce48912b5ap+1, -0x1.dd1a2bb8f2588p-56},
    {Fn::kLog, 0x1.0000000000000p+5, 0, 0x1.bb9d3beb8c86bp+1, 0x1.6bc5ca07e04f0p-58},
    {Fn::kLog, 0x1.86a0000000000p+16, 0, 0x1.7069e2aa2aa5bp+3, -0x1.c6b626e89338fp-53},
    {Fn::kLog, 0x1.ff00000000000p-1, 0, -0x1.0040155d5889ep-9, 0x1.8f98e1113f403p-65},
    {Fn::kLog, 0x1.0000000000001p+0, 0, 0x1.fffffffffffffp-53, 0x1.5555555555554p-158},
    {Fn::kLog, 0x1.fffffffffffffp-1, 0, -0x1.0000000000000p-53, -0x1.0000000000000p-107},
    {Fn::kLog, 0x1.ff80000000000p-1, 0, -0x1.0020055655889p-10, -0x1.9abe6bf0fa436p-65},
    {Fn::kLog, 0x1.6e93f5da2824cp-831, 0, -0x1.1fd2b914f1517p+9, -0x1.acfa2cce24ca0p-51},
    {Fn::kLog, 0x1.658e3ab795204p+830, 0, 0x1.1fd2b914f1517p+9, 0x1.9e9f0c46ee4ecp-51},
    {Fn::kLog, 0x1.6a09e667f3bccp-1, 0, -0x1.62e42fefa39f1p-2, 0x1.8d8f957c3d43cp-57},
    {Fn::kLog, 0x1.6a09e667f3bcdp+0, 0, 0x1.62e42fefa39f0p-2, 0x1.c2e0e1b1548c2p-56},
    {Fn::kLog, 0x1.00b5f4adcf9a4p+9, 0, 0x1.8f6e22f633f08p+2, -0x1.d3ba79a408628p-52},
    {Fn::kLog, 0x1.4bc7e1397bad6p+7, 0, 0x1.471ffc6a3eb09p+2, -0x1.3662ef1be4276p-58},
    {Fn::kLog, 0x1.019f0b6235ad4p+8, 0, 0x1.634b9f05ef7d5p+2, 0x1.31083cb44aac4p-52},
    {Fn::kLog, 0x1.cb27b1c414046p+7, 0, 0x1.5beb5e78dac6bp+2, -0x1.4e6be0185f354p-56},
    {Fn::kLog, 0x1.dfb140359d16cp+8, 0, 0x1.8b14ceeabf92dp+2, -0x1.04649d0c0a5a3p-53},
    {Fn::kLog, 0x1.4d7e92376ebe3p+7, 0, 0x1.4774641eed279p+2, 0x1.10dc30c060098p-52},
    {Fn::kLog, 0x1.3ade84d210f6ep+7, 0, 0x1.43c6d2a1348e8p+2, -0x1.84035713e6988p-53},
    {Fn::kLog, 0x1.6bfc22815b076p+6, 0, 0x1.20b13e1746b05p+2, -0x1.f9b132c76b5dfp-53},
    {Fn::kLog, 0x1.18367964d3934p+8, 0, 0x1.68acd6e136aaep+2, 0x1.d4398cf6ea52fp-53},
    {Fn::kLog, 0x1.40d3c547554fbp-8, 0, -0x1.5471e7618b046p+2, -0x1.c776d65ba4550p-54},
    {Fn::kLog, 0x1.d4f1b13c28234p+6, 0, 0x1.30e879f515373p+2, -0x1.edb75ed68f3ffp-53},
    {Fn::kLog, 0x1.71638877240c7p+7, 0, 0x1.4dff391093f00p+2, -0x1.48cdab1471c88p-53},
    {Fn::kLog1p, -0x1.0000000000000p-9, 0, -0x1.0040155d5889ep-9, 0x1.8f98e1113f403p-65},
    {Fn::kLog1p, -0x1.c000000000000p-7, 0, -0x1.c317384c75f06p-7, -0x1.806208c04c220p-61},
    {Fn::kLog1p, -0x1.0000000000000p-1, 0, -0x1.62e42fefa39efp-1, -0x1.abc9e3b39803fp-56},
    {Fn::kLog1p, -0x1.ff00000000000p-1, 0, -0x1.8f40b5ed9812dp+2, -0x1.c28640541608ep-54},
    {Fn::kLog1p, -0x1.12e0be826d695p-30, 0, -0x1.12e0be84bbb51p-30, 0x1.6fc755c3dd59ap-84},
    {Fn::kLog1p, 0x1.56e1fc2f8f359p-997, 0, 0x1.56e1fc2f8f359p-997, 0x0.0p+0},
    {Fn::kLog1p, -0x1.0000000000000p-60, 0, -0x1.0000000000000p-60, -0x1.0000000000000p-121},
    {Fn::kLog1p, 0x1.0000000000000p-2, 0, 0x1.c8ff7c79a9a22p-3, -0x1.4f689f8434012p-57},
    {Fn::kLog1p, 0x1.8000000000000p+1, 0, 0x1.62e42fefa39efp+0, 0x1.abc9e3b39803fp-55},
    {Fn::kLog1p, -0x1.5e8d1bd820611p-1, 0, -0x1.27757f014747fp+0, 0x1.fad54298020f2p-54},
    {Fn::kLog1p, -0x1.126305ec8b55bp-1, 0, -0x1.890d6bdfaeb55p-1, -0x1.283ead7a9a4f3p-56},
    {Fn::kLog1p, -0x1.c7328db2a9a8cp-1, 0, -0x1.19707029ea6c8p+1, 0x1.9f0b2298c1ffcp-55},
    {Fn::kLog1p, -0x1.76acbe47a9faep-1, 0, -0x1.50e3951ab0ccbp+0, -0x1.3eb7c2b79cd6dp-55},
    {Fn::kLog1p, -0x1.c50309bb9d090p-4, 0, -0x1.e0140e6fd9b45p-4, -0x1.5e467e449e29ap-61},
    {Fn::kLog1p, -0x1.1147571736298p-4, 0, -0x1.1ad26bc911d3fp-4, -0x1.913b3773b98adp-60},
    {Fn::kLog1p, -0x1.4a7cb61480958p-2, 0, -0x1.8f0e0d4f87d78p-2, -0x1.799a8c4e874dcp-57},
    {Fn::kLog1p, -0x1.13faa0e37959dp-1, 0, -0x1.8c7eab80f0294p-1, 0x1.144f369bc00a4p-55},
    {Fn::kLog1p, -0x1.2532f77077d78p-4, 0, -0x1.3038e56d50e2cp-4, 0x1.a6c236bb1ea90p-58},
    {Fn::kLog1p, -0x1.da779e39b309cp-1, 0, -0x1.4e7a6b7673ed0p+1, -0x1.c84b992edc12fp-53},
    {Fn::kPow, 0x1.ff00000000000p-1, 1, 0x1.ff00000000000p-1, 0x0.0p+0},
    {Fn::kPow, 0x1.421e75dc765b7p-1, 1, 0x1.421e75dc765b7p-1, 0x0.0p+0},
    {Fn::kPow, 0x1.91b95839b9f00p-1, 1, 0x1.91b95839b9f00p-1, 0x0.0p+0},
    {Fn::kPow, 0x1.ff00000000000p-1, 2, 0x1.fe00800000000p-1, 0x0.0p+0},
    {Fn::kPow, 0x1.fd871a790f480p-3, 2, 0x1.fb1143492a97ap-5, -0x1.b5ed067bc0000p-62},
    {Fn::kPow, 0x1.ab1105acf56edp-1, 2, 0x1.6438e5085dec4p-1, -0x1.bdd4eacd7a25cp-56},
    {Fn::kPow, 0x1.ff00000000000p-1, 3, 0x1.fd017fc000000p-1, 0x0.0p+0},
    {Fn::kPow, 0x1.50b4f51335e3dp-2, 3, 0x1.233c934627ec1p-5, 0x1.46bec36a53470p-59},
    {Fn::kPow, 0x1.ce07c7a47d669p-1, 3, 0x1.783eef403d3f0p-1, -0x1.3bf8a229fe9d5p-57},
    {Fn::kPow, 0x1.ff00000000000p-1, 7, 0x1.f90a77445eb03p-1, 0x1.ff00000000000p-55},
    {Fn::kPow, 0x1.c115493045dcep-1, 7, 0x1.98f9c98ee00c1p-2, -0x1.bf0d8b68f53afp-56},
    {Fn::kPow, 0x1.6ce866b46b153p-1, 7, 0x1.7e9b4644e1e3ep-4, 0x1.11bfe24fe8f83p-62},
    {Fn::kPow, 0x1.ff00000000000p-1, 9, 0x1.f711eb0fb822ap-1, -0x1.1fdc020000000p-58},
    {Fn::kPow, 0x1.d024e308a0e0ep-2, 9, 0x1.a7651ec4945aep-11, 0x1.a971503bc9f3fp-65},
    {Fn::kPow, 0x1.87d2497cd7890p-1, 9, 0x1.70be4183933cfp-4, -0x1.508be97bb5b4fp-64},
    {Fn::kPow, 0x1.ff00000000000p-1, 16, 0x1.f03b74e26ff99p-1, -0x1.2dd05030218e5p-56},
    {Fn::kPow, 0x1.bc305ecfff07ep-1, 16, 0x1.a5d1439369274p-4, -0x1.d7413072b3f51p-62},
    {Fn::kPow, 0x1.69bee84a03f06p-1, 16, 0x1.f9695e79d1ba1p-9, -0x1.4cba873776b69p-69},
    {Fn::kPow, 0x1.ff00000000000p-1, 22, 0x1.ea72028bfb315p-1, -0x1.c15787ed2aaeap-55},
    {Fn::kPow, 0x1.12ece95e885b2p-4, 22, 0x1.3358d7581bd88p-86, 0x1.78d910e71b4dcp-141},
    {Fn::kPow, 0x1.9ce1cedab8716p-1, 22, 0x1.20315bd08c35fp-7, 0x1.4523d32b9744cp-63},
    {Fn::kPow, 0x1.ff00000000000p-1, 33, 0x1.e002bfc194b06p-1, 0x1.ab0ea4e87b635p-55},
    {Fn::kPow, 0x1.c54181d003389p-1, 33, 0x1.25a9077d8a070p-6, 0x1.6bc71f0fc3455p-63},
    {Fn::kPow, 0x1.ab98104ce937cp-1, 33, 0x1.5746c7c896622p-9, 0x1.727f1574712edp-64},
    {Fn::kPow, 0x1.ff00000000000p-1, 64, 0x1.c3c87f1bba124p-1, 0x1.3113c458843c4p-55},
    {Fn::kPow, 0x1.0476f6e30efe9p-1, 64, 0x1.830fe0c19daf7p-63, -0x1.4293d11285a55p-117},
    {Fn::kPow, 0x1.1dd203f24ac2cp-1, 64, 0x1.20c40e8bb3546p-54, -0x1.f1af17fc7dccfp-109},
};
// clang-format on

const char* fn_name(Fn fn) {
  switch (fn) {
    case Fn::kExp:
      return "exp";
    case Fn::kExpm1:
      return "expm1";
    case Fn::kLog:
      return "log";
    case Fn::kLog1p:
      return "log1p";
    case Fn::kPow:
      return "pow";
  }
  return "?";
}

dd::DD evaluate(const Reference& r) {
  switch (r.fn) {
    case Fn::kExp:
      return dd::exp(dd::DD{r.x, 0});
    case Fn::kExpm1:
      return dd::expm1(dd::DD{r.x, 0});
    case Fn::kLog:
      return dd::log(r.x);
    case Fn::kLog1p:
      return dd::log1p(r.x);
    case Fn::kPow:
      return dd::pow(r.x, r.k);
  }
  return {};
}

// The accuracy ddmath.hpp promises, with a little room: relative for exp, expm1 and powers;
// for log and log1p absolute near 2^-104, relative 2^-94 where the result is small.
double tolerance(const Reference& r) {
  const double magnitude = std::fabs(r.hi);
  switch (r.fn) {
    case Fn::kExp:
      return 0x1p-101 * magnitude;
    case Fn::kExpm1:
      return 0x1p-93 * magnitude;
    case Fn::kLog:
    case Fn::kLog1p:
      return std::fmax(0x1p-101, 0x1p-93 * magnitude);
    case Fn::kPow:
      return 0x1p-98 * magnitude;
  }
  return 0;
}

TEST(DoubleDouble, MatchesTheReferenceToItsStatedAccuracy) {
  for (const Reference& r : kReferences) {
    // ::testing, GoogleTest's: inside namespace abloom a bare testing:: would find abloom::testing
    // (test_keys.hpp) where a unity batch has declared it before this file.
    SCOPED_TRACE(::testing::Message() << fn_name(r.fn) << "(" << std::hexfloat << r.x << ")"
                                      << (r.fn == Fn::kPow ? " k " : "")
                                      << (r.fn == Fn::kPow ? std::to_string(r.k) : ""));
    const dd::DD got = evaluate(r);
    EXPECT_EQ(got.hi, r.hi) << std::hexfloat << got.hi << " against " << r.hi;
    // hi is equal, so the error is lo's: both are small doubles, the difference exact enough.
    EXPECT_LE(std::fabs(got.lo - r.lo), tolerance(r))
        << std::hexfloat << "lo " << got.lo << " against " << r.lo;
  }
}

TEST(DoubleDouble, DoubleFormsRoundTheDoubleDouble) {
  for (double x : {-3.5, -0.75, -1e-7, 0.0, 1e-7, 0.3}) {
    EXPECT_EQ(dd::exp(x), dd::exp(dd::DD{x, 0}).hi);
    EXPECT_EQ(dd::expm1(x), dd::expm1(dd::DD{x, 0}).hi);
  }
  EXPECT_EQ(dd::exp(0.0), 1.0);
  EXPECT_EQ(dd::expm1(0.0), 0.0);
  EXPECT_EQ(dd::log(1.0).hi, 0.0);
  EXPECT_EQ(dd::log1p(0.0).hi, 0.0);
  EXPECT_EQ(dd::pow(0.5, 64).hi, 0x1p-64);  // exact
  EXPECT_EQ(dd::pow(3.0, 0).hi, 1.0);
}

TEST(DoubleDouble, DivisionIsAccurate) {
  // 1/3, 2/7 and 10/9 to 2^-104: q y reproduces x to that.
  for (auto [x, y] : {std::pair{1.0, 3.0}, std::pair{2.0, 7.0}, std::pair{10.0, 9.0}}) {
    const dd::DD q = dd::div(dd::DD{x, 0}, dd::DD{y, 0});
    const dd::DD back = dd::add(dd::mul(q, y), dd::DD{-x, 0});
    EXPECT_LE(std::fabs(back.hi), 0x1p-103 * x) << x << " / " << y;
  }
}

}  // namespace
}  // namespace abloom
