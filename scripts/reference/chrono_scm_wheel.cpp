// The single-wheel test of cobra_experiments.terrain_rigs.run_wheel on Chrono's own SCMTerrain:
// a second engine for the table in cobra_experiments.chrono_scm_reference (how to build and run:
// scripts/reference/README.md). Same protocol as ours: no gravity in the solver; the wheel's load
// W is applied by hand and its vertical motion integrated by hand (semi-implicit Euler, dt 1 ms),
// ramped in over 1 s (smoothstep) and held for 0.5 s at rest; then x advances at v and the wheel
// turns at ω = v / (r (1 - i)), its attitude held. The soil force of each step is the one Chrono
// computes at the step's start (SCMLoader::Setup); whatever Chrono's integrator then does to the
// body is overwritten. Sinkage, drawbar pull (soil force along +x) and driving torque (what the
// axle supplies about +y) are averaged once the wheel has travelled 0.3 m of the 0.5 m.
//
// usage: chrono_scm_wheel Kphi Kc n c phi_deg janosi_m K R radius_m width_m load_n speed_m_s
//                         spacing_m slip [slip ...]
// prints per slip: slip sinkage_m drawbar_pull_n torque_nm normal_n

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "chrono/collision/ChCollisionShapeTriangleMesh.h"
#include "chrono/geometry/ChTriangleMeshConnected.h"
#include "chrono/physics/ChBody.h"
#include "chrono/physics/ChContactMaterialSMC.h"
#include "chrono/physics/ChSystemSMC.h"
#include "chrono_vehicle/terrain/SCMTerrain.h"

using namespace chrono;
using namespace chrono::vehicle;

namespace {

constexpr double kDt = 1e-3;
constexpr double kGravity = 9.81;
constexpr double kSettleS = 1.5;
constexpr double kRampS = 1.0;
constexpr double kTravelM = 0.5;
constexpr double kMeasureFromM = 0.3;

struct Soil {
    double kphi, kc, n, cohesion, friction_deg, janosi, elastic_k, damping_r;
};

struct Wheel {
    double radius, width, load, speed, spacing;
};

// The rim below the axle, ±70° from the bottom in 0.5° facets (1.9 µm from the circle): what the
// rays from the soil can meet, as a mesh, so that they meet it exactly (see RunSlip).
std::shared_ptr<ChTriangleMeshConnected> LowerRim(double radius, double width) {
    auto mesh = chrono_types::make_shared<ChTriangleMeshConnected>();
    auto& vertices = mesh->GetCoordsVertices();
    auto& faces = mesh->GetIndicesVertices();
    const int facets = 280;
    const double half_arc = 70.0 * CH_PI / 180.0;
    for (int k = 0; k <= facets; k++) {
        const double a = -half_arc + 2.0 * half_arc * k / facets;
        vertices.push_back(ChVector3d(radius * std::sin(a), -0.5 * width, -radius * std::cos(a)));
        vertices.push_back(ChVector3d(radius * std::sin(a), +0.5 * width, -radius * std::cos(a)));
    }
    for (int k = 0; k < facets; k++) {
        faces.push_back(ChVector3i(2 * k, 2 * k + 2, 2 * k + 3));
        faces.push_back(ChVector3i(2 * k, 2 * k + 3, 2 * k + 1));
    }
    return mesh;
}

double Smoothstep(double s) {
    s = std::fmin(std::fmax(s, 0.0), 1.0);
    return s * s * (3.0 - 2.0 * s);
}

void RunSlip(const Soil& soil, const Wheel& wheel, double slip) {
    ChSystemSMC system;
    system.SetCollisionSystemType(ChCollisionSystem::Type::BULLET);
    system.SetGravitationalAcceleration(ChVector3d(0, 0, 0));

    const double mass = wheel.load / kGravity;
    const double y0 = 0.5 * wheel.spacing;  // between two node rows, as ours
    auto body = chrono_types::make_shared<ChBody>();
    body->SetMass(mass);
    body->SetInertiaXX(ChVector3d(1, 1, 1));
    body->SetPos(ChVector3d(0, y0, wheel.radius));
    auto material = chrono_types::make_shared<ChContactMaterialSMC>();
    body->AddCollisionShape(chrono_types::make_shared<ChCollisionShapeTriangleMesh>(
        material, LowerRim(wheel.radius, wheel.width), false, false, 0.0));
    body->EnableCollision(true);
    system.AddBody(body);

    SCMTerrain terrain(&system, false);
    terrain.SetSoilParameters(soil.kphi, soil.kc, soil.n, soil.cohesion, soil.friction_deg, soil.janosi,
                              soil.elastic_k, soil.damping_r);
    terrain.EnableBulldozing(false);
    // Exact ray-triangle hits (SCMTerrain's CPU reference of its GPU ray cast). Bullet's RayHit, the
    // default, meets convex shapes through an iterative cast: on this wheel, as a Chrono cylinder or
    // as a mesh, its hits lie up to 4-9 mm below the surface, and SCM turns that into sinkage.
    terrain.EnableRaycastGpuReference(true);
    terrain.AddActiveDomain(body, ChVector3d(0, 0, -wheel.radius + 0.05),
                            ChVector3d(0.28, wheel.width + 0.01, 0.1));
    terrain.Initialize(4.0, 1.0, wheel.spacing);

    double x = 0.0, z = wheel.radius, vz = 0.0, vx = 0.0, omega = 0.0;
    auto set_state = [&]() {
        body->SetPos(ChVector3d(x, y0, z));
        body->SetRot(QUNIT);
        body->SetPosDt(ChVector3d(vx, 0, vz));
        body->SetAngVelParent(ChVector3d(0, omega, 0));
    };
    set_state();
    const int settle_steps = static_cast<int>(std::lround(kSettleS / kDt));
    const int ramp_steps = static_cast<int>(std::lround(kRampS / kDt));
    ChVector3d force, torque;
    for (int k = 0; k < settle_steps; k++) {
        const double load = wheel.load * Smoothstep(static_cast<double>(k + 1) / ramp_steps);
        system.DoStepDynamics(kDt);
        terrain.GetContactForceBody(body, force, torque);
        vz += kDt * (force.z() - load) / mass;
        z += kDt * vz;
        set_state();
    }

    vx = wheel.speed;
    omega = wheel.speed / (wheel.radius * (1.0 - slip));
    set_state();
    const int steps = static_cast<int>(std::lround(kTravelM / (wheel.speed * kDt)));
    double sum_sinkage = 0, sum_pull = 0, sum_torque = 0, sum_normal = 0;
    int count = 0;
    for (int k = 0; k < steps; k++) {
        system.DoStepDynamics(kDt);
        terrain.GetContactForceBody(body, force, torque);  // about the wheel's centre
        vz += kDt * (force.z() - wheel.load) / mass;
        z += kDt * vz;
        x += kDt * wheel.speed;
        set_state();
        if (x >= kMeasureFromM) {
            sum_sinkage += wheel.radius - z;
            sum_pull += force.x();
            sum_torque += -torque.y();
            sum_normal += force.z();
            count++;
        }
    }
    std::printf("%.4f %.9g %.9g %.9g %.9g\n", slip, sum_sinkage / count, sum_pull / count, sum_torque / count,
                sum_normal / count);
    // Chrono's contact patch is every ray hit (the rim within 0.1 m above the soil, inside the active box)
    std::fprintf(stderr, "slip %g: %d ray hits, %d contact patches in the last step\n", slip, terrain.GetNumRayHits(),
                 terrain.GetNumContactPatches());
    std::fflush(stdout);
}

}  // namespace

int main(int argc, char* argv[]) {
    if (argc < 15) {
        std::fprintf(stderr,
                     "usage: %s Kphi Kc n c phi_deg janosi_m K R radius_m width_m load_n speed_m_s spacing_m "
                     "slip [slip ...]\n",
                     argv[0]);
        return 2;
    }
    std::vector<double> v;
    for (int i = 1; i < argc; i++)
        v.push_back(std::atof(argv[i]));
    const Soil soil{v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]};
    const Wheel wheel{v[8], v[9], v[10], v[11], v[12]};
    for (size_t i = 13; i < v.size(); i++)
        RunSlip(soil, wheel, v[i]);
    return 0;
}
