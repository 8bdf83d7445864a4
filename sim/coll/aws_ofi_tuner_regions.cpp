#include "sim/coll/aws_ofi_tuner_regions.hpp"

#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <span>

// Ported from aws-ofi-nccl v1.16.3: src/tuner/nccl_ofi_regions.cpp (the geometry, the tables of
// region_init_internal_p5_p5e, region_init_internal_p5en and region_init_internal_p6,
// calculateChunkSizeTreeLL128, calculateBestNChannel, region_get_coll_info_internal_v3),
// include/tuner/nccl_ofi_tuner_region.h (TUNER_MAX_*) and include/internal/tuner/nccl_defaults.h
// (NCCL's LL128 constants, log2i). Numbers, region order and arithmetic are the plugin's.

namespace linksim::coll {
namespace {

// A point of the plane the regions live in: x = message bytes, y = ranks.
struct Point {
  double x;
  double y;
};

// TUNER_MAX_NUM_VERTICES.
constexpr std::size_t kMaxVertices = 20;
// TUNER_MAX_SIZE and TUNER_MAX_RANKS: the plane's far corner; the tables reach it, and
// is_inside_region casts its ray to twice it.
constexpr double kTunerMaxSize = 100.0 * 1024 * 1024 * 1024;
constexpr double kTunerMaxRanks = 1024.0 * 1024;
constexpr Point kTunerMax{kTunerMaxSize, kTunerMaxRanks};

// nccl_ofi_tuner_region_t: a polygon, its vertices in order, naming one (algorithm, protocol).
struct Region {
  std::string_view algorithm;
  Protocol protocol;
  std::size_t num_vertices;
  std::array<Point, kMaxVertices> vertices;
};

// The plugin states num_vertices beside each list; it always equals the list's length, so it is
// counted here. A list longer than kMaxVertices fails to compile.
constexpr Region region(std::string_view algorithm, Protocol protocol,
                        std::initializer_list<Point> vertices) {
  Region r{algorithm, protocol, vertices.size(), {}};
  std::size_t i = 0;
  for (const Point& v : vertices)
    r.vertices[i++] = v;
  return r;
}

// NCCL_ALGO_TREE, NCCL_ALGO_RING, NCCL_ALGO_NVLS_TREE, NCCL_ALGO_PAT by NCCL's names.
constexpr std::string_view kTree = "Tree";
constexpr std::string_view kRing = "Ring";
constexpr std::string_view kNvlsTree = "NVLSTree";
constexpr std::string_view kPat = "PAT";
constexpr Protocol kLl = Protocol::ll;
constexpr Protocol kLl128 = Protocol::ll128;
constexpr Protocol kSimple = Protocol::simple;

// --- geometry (vsub, vdot, vcross, vmadd, intersect, distance, is_inside_region) ---

Point vsub(Point a, Point b) {
  return {a.x - b.x, a.y - b.y};
}
double vdot(Point a, Point b) {
  return a.x * b.x + a.y * b.y;
}
double vcross(Point a, Point b) {
  return a.x * b.y - a.y * b.x;
}
// a + s * b, worked in long double as the plugin does.
Point vmadd(Point a, long double s, Point b) {
  return {static_cast<double>(a.x + s * b.x), static_cast<double>(a.y + s * b.y)};
}

// Whether segment x0->x1 crosses segment y0->y1: 1 yes, -1 no, 0 when the segments are parallel
// or the crossing is within eps of y0 or y1. `sect`, where given, gets the crossing of the lines
// (not written when parallel).
int intersect(Point x0, Point x1, Point y0, Point y1, double eps, Point* sect) {
  const Point dx = vsub(x1, x0);
  const Point dy = vsub(y1, y0);
  const double d = vcross(dy, dx);
  if (std::fabs(d) < eps) return 0;  // parallel

  long double a = static_cast<long double>(vcross(x0, dx) - vcross(y0, dx)) / d;
  if (sect != nullptr) *sect = vmadd(y0, a, dy);
  if (a < -eps || a > 1 + eps) return -1;
  if (a < eps || a > 1 - eps) return 0;

  a = (vcross(x0, dy) - vcross(y0, dy)) / d;
  if (a < 0 || a > 1) return -1;
  return 1;
}

// Distance from x to the nearest point of segment y0->y1; infinity where the perpendicular from
// x falls outside the segment. A zero-length segment is parallel to everything, and there the
// plugin reads its crossing uninitialised; here it is y0, so the distance is to that vertex.
double distance(Point x, Point y0, Point y1, double eps) {
  const Point dy = vsub(y1, y0);
  const Point x1{x.x + dy.y, x.y - dy.x};
  Point s = y0;
  if (intersect(x, x1, y0, y1, eps, &s) == -1) return std::numeric_limits<double>::infinity();
  s = vsub(s, x);
  return std::sqrt(vdot(s, s));
}

enum class Placement { outside, on_edge, inside };

// Ray casting (rosettacode.org/wiki/Ray-casting_algorithm), as the plugin does it: first any
// edge within eps, then a bounding-box screen, then the parity of the edges crossed by a ray to
// a point beyond every region. A crossing at an edge's end (intersect's 0) is not counted: the
// plugin asserts there is none, and its release builds (NDEBUG) count it as no crossing.
Placement is_inside_region(Point point, const Region& region) {
  const double eps = 1e-10;
  const std::size_t n = region.num_vertices;
  const auto& v = region.vertices;

  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t k = (i + 1) % n;
    if (distance(point, v[i], v[k], eps) < eps) return Placement::on_edge;
  }

  // The plugin seeds the y bounds from vertices[1] (the loop covers every vertex, so the
  // box is the same).
  double min_x = v[0].x;
  double max_x = v[0].x;
  double min_y = v[1].y;
  double max_y = v[1].y;
  for (std::size_t i = 0; i < n; ++i) {
    if (v[i].x > max_x) max_x = v[i].x;
    if (v[i].x < min_x) min_x = v[i].x;
    if (v[i].y > max_y) max_y = v[i].y;
    if (v[i].y < min_y) min_y = v[i].y;
  }
  if (point.x < min_x || point.x > max_x || point.y < min_y || point.y > max_y) {
    return Placement::outside;
  }

  const Point e{2.0 * kTunerMaxSize, 2.0 * kTunerMaxRanks};
  int crosses = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t k = (i + 1) % n;
    if (intersect(point, e, v[i], v[k], eps, nullptr) == 1) ++crosses;
  }
  return (crosses & 1) != 0 ? Placement::inside : Placement::outside;
}

// Given two points a and b, the point of their line farthest out with z's x or z's y: the
// regions' edges carried to the plane's far corner.
constexpr Point extend_region(Point a, Point b, Point z) {
  if (a.x == b.x) return {a.x, z.y};  // a vertical line
  if (a.y == b.y) return {z.x, a.y};  // a horizontal line
  const double m = (a.y - b.y) / (a.x - b.x);
  const double c = b.y - m * b.x;
  const double projected_zy = m * z.x + c;
  if (projected_zy < z.y) return {z.x, projected_zy};
  return {(z.y - c) / m, z.y};
}

// --- region_init_internal_p5en ---

// nRanks == 8 * nNodes, all-reduce.
constexpr Point kP5enX8ArTreeLl = extend_region({262144, 192}, {262144, 1024}, kTunerMax);
constexpr Point kP5enX8ArTreeLl128 = extend_region({150994944, 128}, {251658240, 1024}, kTunerMax);
constexpr Point kP5enX8ArNvlsTreeSimple =
    extend_region({6442450944, 256}, {17179869184, 768}, kTunerMax);
constexpr std::array kP5enX8AllReduce{
    region(kTree, kLl, {{0, 16}, {262144, 16}, {262144, 1024}, kP5enX8ArTreeLl}),
    region(kTree, kLl128,
           {kP5enX8ArTreeLl,
            {262144, 1024},
            {262144, 16},
            {14680064, 16},
            {150994944, 128},
            {251658240, 1024},
            kP5enX8ArTreeLl128}),
    region(kRing, kLl128,
           {{150994944, 128}, {14680064, 16}, {33554432, 16}, {536870912, 32}, {536870912, 128}}),
    region(kNvlsTree, kSimple,
           {kP5enX8ArTreeLl128,
            {251658240, 1024},
            {150994944, 128},
            {536870912, 128},
            {536870912, 32},
            {6442450944, 256},
            {17179869184, 768},
            kP5enX8ArNvlsTreeSimple}),
    region(kRing, kSimple,
           {kP5enX8ArNvlsTreeSimple,
            {17179869184, 768},
            {6442450944, 256},
            {536870912, 32},
            {33554432, 16},
            {1073741824, 16},
            {kTunerMaxSize, 16}}),
};

// nRanks == 8 * nNodes, all-gather and reduce-scatter (the plugin writes the same table twice).
constexpr Point kP5enX8AgRsRingLl = extend_region({8388608, 256}, {33554432, 1024}, kTunerMax);
constexpr Point kP5enX8AgRsRingLl128 =
    extend_region({8589934592, 512}, {17179869184, 1024}, kTunerMax);
constexpr std::array kP5enX8AllGatherReduceScatter{
    region(kRing, kLl,
           {{0, 16},
            {131072, 16},
            {262144, 32},
            {8388608, 256},
            {33554432, 1024},
            kP5enX8AgRsRingLl,
            {0, kTunerMaxRanks}}),
    region(kRing, kLl128,
           {kP5enX8AgRsRingLl,
            {33554432, 1024},
            {8388608, 256},
            {262144, 32},
            {131072, 16},
            {268435456, 16},
            {2147483648, 128},
            {8589934592, 512},
            {17179869184, 1024},
            kP5enX8AgRsRingLl128}),
    region(kRing, kSimple,
           {kP5enX8AgRsRingLl128,
            {17179869184, 1024},
            {8589934592, 512},
            {268435456, 16},
            {17179869184, 16},
            {kTunerMaxSize, 16}}),
};

// nRanks == nNodes, all-reduce.
constexpr Point kP5enX1ArTreeLl128 = extend_region({524288, 8}, {1048576, 96}, kTunerMax);
constexpr Point kP5enX1ArTreeSimple = extend_region({8388608, 32}, {33554432, 128}, kTunerMax);
constexpr Point kP5enX1ArRingLl128 = extend_region({50331648, 16}, {301989888, 128}, kTunerMax);
constexpr std::array kP5enX1AllReduce{
    region(kTree, kLl, {{0, 2}, {65536, 2}, {65536, 64}, {65536, kTunerMaxRanks}}),
    region(kTree, kLl128,
           {{65536, kTunerMaxRanks},
            {65536, 64},
            {65536, 2},
            {262144, 2},
            {524288, 8},
            {1048576, 96},
            kP5enX1ArTreeLl128}),
    region(kTree, kSimple,
           {kP5enX1ArTreeLl128,
            {1048576, 96},
            {524288, 8},
            {262144, 2},
            {8388608, 32},
            {33554432, 128},
            kP5enX1ArTreeSimple}),
    region(kRing, kLl128,
           {kP5enX1ArTreeSimple,
            {33554432, 128},
            {8388608, 32},
            {262144, 2},
            {6291456, 2},
            {50331648, 16},
            {301989888, 128},
            kP5enX1ArRingLl128}),
    region(
        kRing, kSimple,
        {kP5enX1ArRingLl128, {301989888, 128}, {50331648, 16}, {6291456, 2}, {kTunerMaxSize, 2}}),
};

// nRanks == nNodes, all-gather and reduce-scatter (the plugin writes the same table twice).
constexpr Point kP5enX1AgRsPatSimple = extend_region({50331648, 64}, {117440512, 128}, kTunerMax);
constexpr Point kP5enX1AgRsRingLl128 = extend_region({50331648, 16}, {301989888, 128}, kTunerMax);
constexpr std::array kP5enX1AllGatherReduceScatter{
    region(kPat, kSimple,
           {{0, 2},
            {65536, 2},
            {1048576, 2},
            {16777216, 32},
            {50331648, 64},
            {117440512, 128},
            kP5enX1AgRsPatSimple,
            {kTunerMaxSize, kTunerMaxRanks},
            {65536, kTunerMaxRanks},
            {0, kTunerMaxRanks}}),
    region(kRing, kLl128,
           {kP5enX1AgRsPatSimple,
            {117440512, 128},
            {50331648, 64},
            {16777216, 32},
            {1048576, 2},
            {4194304, 2},
            {50331648, 16},
            {301989888, 128},
            kP5enX1AgRsRingLl128}),
    region(
        kRing, kSimple,
        {kP5enX1AgRsRingLl128, {301989888, 128}, {50331648, 16}, {4194304, 2}, {kTunerMaxSize, 2}}),
};

// --- region_init_internal_p5_p5e ---

// nRanks == 8 * nNodes, all-reduce. The plugin computes two pairs of equal extensions under
// their own names; so does this.
constexpr Point kP5X8ArTreeLl128 = extend_region({402653184, 2048}, {402653184, 4096}, kTunerMax);
constexpr Point kP5X8ArNvlsTreeSimple1 =
    extend_region({8053063680, 160}, {9663676416, 192}, kTunerMax);
constexpr Point kP5X8ArNvlsTreeSimple2 =
    extend_region({402653184, 2048}, {402653184, 4096}, kTunerMax);
constexpr Point kP5X8ArRingSimple = extend_region({8053063680, 160}, {9663676416, 192}, kTunerMax);
constexpr std::array kP5X8AllReduce{
    region(kTree, kLl128,
           {{0, 16},
            {31457280, 16},
            {37748736, 32},
            {117440512, 64},
            {301989888, 128},
            {301989888, 256},
            {335544320, 512},
            {536870912, 1024},
            {402653184, 2048},
            {402653184, 4096},
            kP5X8ArTreeLl128,
            {0, kP5X8ArTreeLl128.y}}),
    region(kNvlsTree, kSimple, {{31457281, 16}, {kTunerMaxSize, 16}, {31457281, 16}}),
    region(kRing, kLl128,
           {{31457280, 17},
            {1073741824, 17},
            {2147483648, 64},
            {2147483648, 128},
            {1342177280, 160},
            {2147483648, 256},
            {1074790400, 256},
            {444596224, 160},
            {301989888, 128},
            {117440512, 64},
            {37748736, 32}}),
    region(kNvlsTree, kSimple,
           {{2147483648, 128},
            {6442450944, 128},
            {8053063680, 160},
            {9663676416, 192},
            kP5X8ArNvlsTreeSimple1,
            kP5X8ArNvlsTreeSimple2,
            {402653184, 4096},
            {402653184, 2048},
            {536870912, 1024},
            {335544320, 512},
            {301989888, 256},
            {310378496, 160},
            {444596224, 160},
            {1074790400, 256},
            {2684354560, 256},
            {2147483648, 224},
            {1342177280, 160}}),
    region(kRing, kSimple,
           {{1073741824, 17},
            {kP5X8ArRingSimple.x, 17},
            kP5X8ArRingSimple,
            {9663676416, 192},
            {8053063680, 160},
            {2684354560, 64},
            {1610612736, 32}}),
};

// nRanks == 2 * nNodes, all-reduce.
constexpr Point kP5X2ArTreeLl128 = extend_region({88160256, 128}, {178163712, 256}, kTunerMax);
constexpr Point kP5X2ArTreeSimple1 = extend_region({787480576, 128}, {1073741824, 256}, kTunerMax);
constexpr Point kP5X2ArTreeSimple2 = extend_region({257114112, 128}, {269484032, 256}, kTunerMax);
constexpr Point kP5X2ArNvlsTreeSimple =
    extend_region({787480576, 128}, {1073741824, 256}, kTunerMax);
constexpr std::array kP5X2AllReduce{
    region(kTree, kLl128,
           {{0, 4},
            {1314816, 4},
            {1051648, 8},
            {1051648, 12},
            {2367488, 16},
            {5525504, 32},
            {9473024, 64},
            {88160256, 128},
            {178163712, 256},
            kP5X2ArTreeLl128,
            {0, kP5X2ArTreeLl128.y}}),
    region(kRing, kLl128,
           {{1314816, 4},
            {19736576, 4},
            {41842688, 8},
            {296747008, 64},
            {257114112, 128},
            {269484032, 256},
            {178163712, 256},
            {88160256, 128},
            {9473024, 64},
            {5525504, 32},
            {2367488, 16},
            {1051648, 12},
            {1051648, 8},
            {1314816, 4}}),
    region(kNvlsTree, kSimple,
           {{19736576, 4},
            {81844224, 4},
            {275775488, 8},
            {275775488, 48},
            {296747008, 64},
            {41842688, 8}}),
    region(kTree, kLl128, {{81844224, 4}, {269484032, 4}, {81844224, 4}}),
    region(kTree, kSimple, {{269484032, 4}, {kTunerMaxSize, 4}, {269484032, 4}}),
    region(kRing, kSimple,
           {{81844224, 5},
            {kTunerMaxSize, 5},
            {kTunerMaxSize, 32},
            {1073741824, 40},
            {1073741824, 128},
            {787480576, 128},
            {296747008, 64},
            {275775488, 48},
            {275775488, 8},
            {81844224, 5}}),
    region(kTree, kSimple,
           {{296747008, 64},
            {787480576, 128},
            {1073741824, 256},
            kP5X2ArTreeSimple1,
            kP5X2ArTreeSimple2,
            {269484032, 256},
            {257114112, 128}}),
    region(kNvlsTree, kSimple,
           {kP5X2ArNvlsTreeSimple,
            {1073741824, 256},
            {787480576, 128},
            {1073741824, 128},
            {1073741824, 40},
            {kTunerMaxSize, 32}}),
};

// nRanks == nNodes, all-reduce, all-gather, reduce-scatter.
constexpr Point kP5X1ArTreeLl128 = extend_region({9999360, 64}, {119477248, 128}, kTunerMax);
constexpr Point kP5X1ArRingLl128 = extend_region({4736000, 2}, {269484032, 128}, kTunerMax);
constexpr std::array kP5X1AllReduce{
    region(kTree, kLl128,
           {{0, 16}, {2367488, 16}, {9999360, 64}, {119477248, 128}, kP5X1ArTreeLl128}),
    region(kRing, kLl128,
           {{0, 2},
            {4736000, 2},
            {269484032, 128},
            kP5X1ArRingLl128,
            kP5X1ArTreeLl128,
            {119477248, 128},
            {9999360, 64},
            {2367488, 16},
            {0, 16}}),
    region(kRing, kSimple, {{4736000, 2}, {kTunerMaxSize, 2}, kP5X1ArRingLl128, {269484032, 128}}),
};
constexpr Point kP5X1AgRingSimple = extend_region({4194304, 2}, {8589934592, 2048}, kTunerMax);
constexpr std::array kP5X1AllGather{
    region(kRing, kSimple,
           {{4194304, 2}, {kTunerMaxSize, 2}, kP5X1AgRingSimple, {8589934592, 2048}}),
};
constexpr Point kP5X1RsRingSimple = extend_region({8388608, 2}, {4294967296, 1024}, kTunerMax);
constexpr std::array kP5X1ReduceScatter{
    region(kRing, kSimple,
           {{8388608, 2}, {kTunerMaxSize, 2}, kP5X1RsRingSimple, {4294967296, 1024}}),
};

// --- region_init_internal_p6 (its numbers are written out: 107374182400 is TUNER_MAX_SIZE) ---

// ag_and_rs_0x0_regions: nRanks == 8 * nNodes, all-gather and reduce-scatter.
constexpr std::array kP6X8AllGatherReduceScatter{
    region(kRing, kLl,
           {{0, 16}, {1048576, 16}, {106954752, 1024}, {107374182400, 1021978.297}, {0, 1048576}}),
    region(kRing, kLl128,
           {{1048576, 16},
            {268435456, 16},
            {21474836480, 1024},
            {107374182400, 5107.038},
            {107374182400, 1021978.297},
            {106954752, 1024}}),
    region(kRing, kSimple, {{268435456, 16}, {107374182400, 16}, {107374182400, 5107.038}}),
};

// nRanks == 8 * nNodes, all-reduce.
constexpr std::array kP6X8AllReduce{
    region(kTree, kLl, {{0, 16}, {262144, 16}, {262144, 1024}, {262144, 1048576}}),
    region(kTree, kLl128,
           {{262144, 1048576},
            {262144, 1024},
            {262144, 16},
            {55574528, 16},
            {67108864, 32},
            {465567744, 128},
            {962592768, 256},
            {1610612736, 512},
            {2684354560, 1024},
            {107374182400, 50944},
            {107374182400, 1048576}}),
    region(kRing, kLl128,
           {{55574528, 16},
            {87031808, 16},
            {562036736, 32},
            {17179869184, 1024},
            {107374182400, 6408.141},
            {107374182400, 33962.667},
            {3758096384, 1024},
            {2147483648, 512},
            {1610612736, 512},
            {962592768, 256},
            {465567744, 128},
            {67108864, 32}}),
    region(kNvlsTree, kSimple,
           {{1610612736, 512},
            {2147483648, 512},
            {3758096384, 1024},
            {107374182400, 33962.667},
            {107374182400, 50944},
            {2684354560, 1024}}),
    region(kNvlsTree, kSimple,
           {{87031808, 16}, {107374182400, 16}, {107374182400, 16}, {87031808, 16}}),
    region(kRing, kSimple,
           {{562036736, 32},
            {87031808, 16},
            {107374182400, 16},
            {107374182400, 6408.141},
            {17179869184, 1024}}),
};

// nRanks == nNodes, all-reduce.
constexpr std::array kP6X1AllReduce{
    region(kTree, kLl, {{0, 2}, {32768, 2}, {32768, 128}, {32768, 131072}, {0, 131072}}),
    region(kTree, kLl128,
           {{32768, 2},
            {131072, 2},
            {8388608, 128},
            {8589934592, 131072},
            {32768, 131072},
            {32768, 128}}),
    region(kRing, kLl128,
           {{131072, 2},
            {3145728, 2},
            {297795584, 128},
            {107374182400, 45916},
            {107374182400, 59831},
            {164626432, 128},
            {20971520, 48},
            {3145728, 48}}),
    region(kTree, kSimple,
           {{3145728, 48},
            {20971520, 48},
            {164626432, 128},
            {107374182400, 59831},
            {107374182400, 131072},
            {8589934592, 131072}}),
    region(kRing, kSimple,
           {{3145728, 2}, {107374182400, 2}, {107374182400, 45916}, {297795584, 128}}),
};

// nRanks == nNodes, all-gather.
constexpr std::array kP6X1AllGather{
    region(kRing, kLl, {{0, 2}, {65536, 2}, {65536, 4}}),
    region(kPat, kSimple,
           {{0, 2},
            {65536, 4},
            {1048576, 4},
            {12582912, 48},
            {88080384, 48},
            {248512512, 128},
            {34359738368, 17137},
            {0, 131072}}),
    region(kRing, kLl128,
           {{65536, 2},
            {2097152, 2},
            {16777216, 8},
            {291504128, 128},
            {34359738368, 15008},
            {34359738368, 17137},
            {248512512, 128},
            {88080384, 48},
            {12582912, 48},
            {1048576, 4},
            {65536, 4}}),
    region(kRing, kSimple,
           {{2097152, 2}, {34359738368, 2}, {34359738368, 15008}, {291504128, 128}, {16777216, 8}}),
};

// nRanks == nNodes, reduce-scatter.
constexpr std::array kP6X1ReduceScatter{
    region(kRing, kLl, {{0, 2}, {65536, 2}, {65536, 4}}),
    region(kPat, kSimple,
           {{0, 2},
            {65536, 4},
            {1048576, 4},
            {67108864, 48},
            {106954752, 48},
            {274877906944, 121928},
            {0, 131072}}),
    region(kRing, kLl128,
           {{65536, 2},
            {2097152, 2},
            {16777216, 8},
            {106954752, 48},
            {67108864, 48},
            {1048576, 4},
            {65536, 4}}),
    region(
        kRing, kSimple,
        {{2097152, 2}, {274877906944, 2}, {274877906944, 121928}, {106954752, 48}, {16777216, 8}}),
};

// The tables of one communicator shape; an empty span is an operation without regions.
struct ShapeRegions {
  std::span<const Region> all_reduce;
  std::span<const Region> all_gather;
  std::span<const Region> reduce_scatter;
};

// region_init_internal_*: which shapes each platform has tables for, tried in the plugin's order.
ShapeRegions shape_regions(AwsOfiPlatform platform, long long ranks, long long nodes) {
  switch (platform) {
    case AwsOfiPlatform::p5_p5e:
      if (ranks == 8 * nodes) return {kP5X8AllReduce, {}, {}};
      if (ranks == 2 * nodes) return {kP5X2AllReduce, {}, {}};
      if (ranks == nodes) return {kP5X1AllReduce, kP5X1AllGather, kP5X1ReduceScatter};
      return {};
    case AwsOfiPlatform::p5en:
      if (ranks == 8 * nodes) {
        return {kP5enX8AllReduce, kP5enX8AllGatherReduceScatter, kP5enX8AllGatherReduceScatter};
      }
      if (ranks == nodes) {
        return {kP5enX1AllReduce, kP5enX1AllGatherReduceScatter, kP5enX1AllGatherReduceScatter};
      }
      return {};
    case AwsOfiPlatform::p6_b200:
      if (ranks == 8 * nodes) {
        return {kP6X8AllReduce, kP6X8AllGatherReduceScatter, kP6X8AllGatherReduceScatter};
      }
      if (ranks == nodes) return {kP6X1AllReduce, kP6X1AllGather, kP6X1ReduceScatter};
      return {};
  }
  return {};
}

std::span<const Region> op_regions(const ShapeRegions& shape, Op op) {
  switch (op) {
    case Op::all_reduce:
      return shape.all_reduce;
    case Op::all_gather:
      return shape.all_gather;
    case Op::reduce_scatter:
      return shape.reduce_scatter;
    default:
      return {};  // broadcast, reduce: no tables; the rest are not NCCL collectives
  }
}

// --- calculateChunkSizeTreeLL128, calculateBestNChannel (nccl_defaults.h's NCCL constants) ---

constexpr std::uint64_t kNcclSteps = 8;
constexpr std::uint64_t kNcclWarpSize = 32;
constexpr std::uint64_t kLl128MaxNthreads = 640;
constexpr std::uint64_t kLl128ElemsPerThread = 120;
constexpr std::uint64_t kLl128ShmemElemsPerThread = 8;
constexpr std::uint64_t kLl128LineElems = 128 / sizeof(std::uint64_t);  // LL128_LINESIZE / 8
constexpr std::uint64_t kLl128DataElems = kLl128LineElems - 1;

// The wire bytes of one Tree/LL128 chunk NCCL would use for `message_bytes` on `channels`
// channels, its chunk halved while the message gives each tree step too few chunks (8 GPUs per
// node assumed).
std::uint64_t chunk_bytes_tree_ll128(std::uint64_t message_bytes, int channels, int log2_nodes) {
  const int ppn = 8;
  const std::uint64_t buff_bytes =
      kLl128ElemsPerThread * kLl128MaxNthreads * kNcclSteps * sizeof(std::uint64_t);
  const std::uint64_t step_bytes = buff_bytes / kNcclSteps;
  std::uint64_t chunk = step_bytes;
  chunk = (chunk / kLl128LineElems) * kLl128DataElems;  // LL128's flag words

  const double steps = 1 + log2_nodes + 0.1 * ppn;
  const auto chunks_per_channel = [&] {
    return static_cast<double>(message_bytes / (static_cast<std::uint64_t>(channels) * chunk));
  };
  while (chunks_per_channel() < steps * 64 / ppn && chunk > 131072)
    chunk /= 2;
  while (chunks_per_channel() < steps * 16 / ppn && chunk > 32768)
    chunk /= 2;

  const std::uint64_t grain_bytes = kNcclWarpSize * kLl128ShmemElemsPerThread / kLl128LineElems *
                                    kLl128DataElems * sizeof(std::uint64_t);
  chunk = (chunk / grain_bytes) * grain_bytes;
  const std::uint64_t elements_per_grain = grain_bytes / sizeof(float);
  const std::uint64_t elements = (chunk / grain_bytes) * elements_per_grain;

  const std::uint64_t wire_words_per_slice = kNcclWarpSize * kLl128ShmemElemsPerThread;
  const std::uint64_t data_elements_per_slice =
      (wire_words_per_slice - wire_words_per_slice / kLl128LineElems) *
      (sizeof(std::uint64_t) / sizeof(float));
  return static_cast<std::uint64_t>(
      std::ceil(static_cast<double>(elements) / static_cast<double>(data_elements_per_slice)) *
      static_cast<double>(wire_words_per_slice) * static_cast<double>(sizeof(std::uint64_t)));
}

// Of 16, 24 and 32 channels, the one with the largest chunk; on a tie, the most channels.
int best_tree_ll128_channels(std::uint64_t message_bytes, int log2_nodes) {
  int best = 0;
  std::uint64_t max_chunk = 0;
  for (const int channels : {16, 24, 32}) {
    const std::uint64_t chunk = chunk_bytes_tree_ll128(message_bytes, channels, log2_nodes);
    if (chunk > max_chunk || (chunk == max_chunk && channels > best)) {
      max_chunk = chunk;
      best = channels;
    }
  }
  return best;
}

}  // namespace

std::optional<AwsOfiPlatform> aws_ofi_platform_of(std::string_view instance_type) {
  if (instance_type == "p5.48xlarge" || instance_type == "p5e.48xlarge") {
    return AwsOfiPlatform::p5_p5e;
  }
  if (instance_type == "p5en.48xlarge") return AwsOfiPlatform::p5en;
  if (instance_type == "p6-b200.48xlarge") return AwsOfiPlatform::p6_b200;
  return std::nullopt;
}

std::optional<AwsOfiRegionPick> aws_ofi_region_pick(
    AwsOfiPlatform platform, Op op, double bytes, int ranks, int nodes,
    const std::function<bool(std::string_view algorithm, Protocol)>& offered) {
  // "Skip when two nodes or lesser because the regions are not well defined".
  if (nodes <= 2) return std::nullopt;
  // NCCL's nBytes is a size_t; NaN would pass every comparison of the ray casting.
  if (std::isnan(bytes)) return std::nullopt;
  const std::span<const Region> regions = op_regions(shape_regions(platform, ranks, nodes), op);

  const Point p{bytes, static_cast<double>(ranks)};
  for (const Region& r : regions) {
    if (offered && !offered(r.algorithm, r.protocol)) continue;
    if (is_inside_region(p, r) == Placement::outside) continue;

    AwsOfiRegionPick pick{r.algorithm, r.protocol, std::nullopt};
    // The plugin's rule for P6, Tree/LL128 all-reduce at 8 GPUs per node, 4-32 MiB: the channel
    // count giving the largest chunk, measured to help there.
    constexpr double kMiB = 1024.0 * 1024.0;
    if (platform == AwsOfiPlatform::p6_b200 && bytes >= 4 * kMiB && bytes <= 32 * kMiB &&
        r.algorithm == kTree && r.protocol == Protocol::ll128 &&
        static_cast<long long>(nodes) * 8 == ranks) {
      const int log2_nodes =
          static_cast<int>(std::bit_width(static_cast<unsigned>(nodes))) - 1;  // log2i
      pick.channels = best_tree_ll128_channels(static_cast<std::uint64_t>(bytes), log2_nodes);
    }
    return pick;
  }
  return std::nullopt;
}

}  // namespace linksim::coll
