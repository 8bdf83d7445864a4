#pragma once
// Identical planes in a whole job (sim/coll/route_planes.hpp). On a machine whose GPUs meet
// through identical switch planes (a DGX A100's six NVSwitches), a job may simulate one plane of
// each set when all its traffic that touches a plane touches the planes alike: every collective
// by an algorithm that moves only over rank routes, every stage send over its route's kept
// paths, and no other transfer (a host copy) on a plane's channels. Max-min sharing then maps
// the job's problem to itself under swapping two copies, as it does a lone collective's, so each
// copy of a plane carries exactly the rates of the plane it copies: the reduced run ends at the
// same times with a fraction of the flows. Its left-out channels are given the usage of the
// channels they copy, so summaries, bottlenecks and traces see every plane.

#include "sim/coll/route_planes.hpp"
#include "sim/engine/timeline.hpp"
#include "sim/topo/routing.hpp"

namespace linksim::work {

// Thrown while building a job on planes when some traffic cannot leave them out (an NVLS
// collective, a host copy over a plane); the job is then built again on every plane.
struct PlanesDoNotHold {};

// Whether none of `route`'s channels lies on a plane.
bool off_planes(const coll::PlaneCopies& planes, const topo::Route& route);

// Gives each left-out channel of `tl` the usage (bytes, busy and saturated time, intervals) of
// the channel it copies, and the channels past the topology's (the per-rank caps every plane's
// flows share) the bytes of every plane. REQUIRES: `tl` is a run of a job built on `planes`.
void fill_left_out_planes(const coll::PlaneCopies& planes, engine::Timeline& tl);

}  // namespace linksim::work
