// cobra_experiments.terrain_rigs' single-wheel test and COBRA-link tests on Chrono's own SCMTerrain:
// a second engine for the tables in cobra_experiments.chrono_scm_reference (how to build and run:
// scripts/reference/README.md). The protocols are ours (terrain_rigs.run_wheel, run_link_hold,
// run_link_drag_across): no gravity in the solver; loads applied and the free motion integrated by
// hand (semi-implicit Euler, dt 1 ms) from the soil force Chrono computes at the start of each step
// (SCMLoader::Setup); whatever Chrono's integrator then does to the body is overwritten, and the
// body's attitude is held. The rays meet the bodies exactly: each is a faceted mesh of the surface
// the soil can see, cast by SCMTerrain's reference ray cast (see Terrain()).
//
// usage (SOIL = Kphi Kc n c phi_deg janosi_m K R; BULLDOZING = on erosion_angle flow_factor
// iterations propagations, on = 0 or 1):
//   chrono_scm_rigs wheel SOIL radius_m width_m load_n speed_m_s spacing_m slip [slip ...]
//     per slip: slip sinkage_m drawbar_pull_n torque_nm normal_n (means once 0.3 of 0.5 m travelled;
//     the wheel is loaded over 1 s and held 0.5 s, then driven at v and ω = v / (r (1 - i)))
//   chrono_scm_rigs link-hold SOIL BULLDOZING spacing_m side_load_fraction midway(0|1) hold_s
//     the link settled (gravity over 0.5 s, 1.5 s), then a side load of fraction x F_n tan φ across
//     its axis ramped over 2 s and held: displacement at the end of the ramp [m], at the end [m],
//     creep speed over the last 1 s [m/s]
//   chrono_scm_rigs link-drag SOIL BULLDOZING spacing_m speed_m_s distance_m
//     the settled link dragged across its axis: mean and largest horizontal / vertical force over
//     the last 40 % of the travel

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
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
constexpr double kLinkMassKg = 0.464;  // a COBRA module, as terrain_rigs
constexpr double kLinkRadiusM = 0.045;
constexpr double kLinkHalfLengthM = 0.068;

struct Soil {
    double kphi, kc, n, cohesion, friction_deg, janosi, elastic_k, damping_r;
};

struct Bulldozing {
    bool on;
    double erosion_angle_deg, flow_factor;
    int iterations, propagations;
};

double Smoothstep(double s) {
    s = std::fmin(std::fmax(s, 0.0), 1.0);
    return s * s * (3.0 - 2.0 * s);
}

// A cylinder's surface between two angles about its axis (0 = straight down), in 0.5° facets (a
// 0.2 m radius stays within 1.9 µm of the circle): `along_x` puts the axis along x (the link), else
// along y (the wheel's axle).
std::shared_ptr<ChTriangleMeshConnected> CylinderArc(double radius, double half_length, double half_arc_deg,
                                                     bool along_x) {
    auto mesh = chrono_types::make_shared<ChTriangleMeshConnected>();
    auto& vertices = mesh->GetCoordsVertices();
    auto& faces = mesh->GetIndicesVertices();
    const int facets = static_cast<int>(std::lround(4.0 * half_arc_deg));
    const double half_arc = half_arc_deg * CH_PI / 180.0;
    for (int k = 0; k <= facets; k++) {
        const double a = -half_arc + 2.0 * half_arc * k / facets;
        for (double end : {-half_length, half_length}) {
            vertices.push_back(along_x ? ChVector3d(end, radius * std::sin(a), -radius * std::cos(a))
                                       : ChVector3d(radius * std::sin(a), end, -radius * std::cos(a)));
        }
    }
    for (int k = 0; k < facets; k++) {
        faces.push_back(ChVector3i(2 * k, 2 * k + 2, 2 * k + 3));
        faces.push_back(ChVector3i(2 * k, 2 * k + 3, 2 * k + 1));
    }
    return mesh;
}

// One body on SCM soil, in a system without gravity (the rigs integrate the motion themselves).
struct Rig {
    ChSystemSMC system;
    std::shared_ptr<ChBody> body;
    std::unique_ptr<SCMTerrain> terrain;

    Rig(const Soil& soil, const Bulldozing& bulldozing, double spacing, double mass,
        std::shared_ptr<ChTriangleMeshConnected> surface, const ChVector3d& box_center, const ChVector3d& box_dims) {
        system.SetCollisionSystemType(ChCollisionSystem::Type::BULLET);
        system.SetGravitationalAcceleration(ChVector3d(0, 0, 0));
        body = chrono_types::make_shared<ChBody>();
        body->SetMass(mass);
        body->SetInertiaXX(ChVector3d(1, 1, 1));
        auto material = chrono_types::make_shared<ChContactMaterialSMC>();
        body->AddCollisionShape(
            chrono_types::make_shared<ChCollisionShapeTriangleMesh>(material, surface, false, false, 0.0));
        body->EnableCollision(true);
        system.AddBody(body);
        terrain = std::make_unique<SCMTerrain>(&system, false);
        terrain->SetSoilParameters(soil.kphi, soil.kc, soil.n, soil.cohesion, soil.friction_deg, soil.janosi,
                                   soil.elastic_k, soil.damping_r);
        terrain->EnableBulldozing(bulldozing.on);
        terrain->SetBulldozingParameters(bulldozing.erosion_angle_deg, bulldozing.flow_factor, bulldozing.iterations,
                                         bulldozing.propagations);
        // Exact ray-triangle hits (SCMTerrain's CPU reference of its GPU ray cast). Bullet's RayHit, the
        // default, meets convex shapes through an iterative cast: on the wheel, as a Chrono cylinder or
        // as a mesh, its hits lie 3-9 mm below the surface, and SCM turns that into sinkage.
        terrain->EnableRaycastGpuReference(true);
        terrain->AddActiveDomain(body, box_center, box_dims);
        terrain->Initialize(4.0, 4.0, spacing);
    }

    // The soil's force and torque (about the body's centre) for the state set before this step.
    void Step(const ChVector3d& position, const ChVector3d& velocity, const ChVector3d& angular_velocity,
              ChVector3d& force, ChVector3d& torque) {
        body->SetPos(position);
        body->SetRot(QUNIT);
        body->SetPosDt(velocity);
        body->SetAngVelParent(angular_velocity);
        system.DoStepDynamics(kDt);
        terrain->GetContactForceBody(body, force, torque);
    }
};

void RunWheel(const Soil& soil, double radius, double width, double load, double speed, double spacing,
              double slip) {
    const double mass = load / kGravity;
    Rig rig(soil, Bulldozing{false, 0, 0, 0, 0}, spacing, mass, CylinderArc(radius, 0.5 * width, 70.0, false),
            ChVector3d(0, 0, -radius + 0.05), ChVector3d(0.28, width + 0.01, 0.1));
    ChVector3d position(0, 0.5 * spacing, radius), velocity(0, 0, 0), omega(0, 0, 0), force, torque;
    for (int k = 0; k < 1500; k++) {  // load ramped in over 1 s, then held
        rig.Step(position, velocity, omega, force, torque);
        velocity.z() += kDt * (force.z() - load * Smoothstep((k + 1) / 1000.0)) / mass;
        position.z() += kDt * velocity.z();
    }
    velocity.x() = speed;
    omega.y() = speed / (radius * (1.0 - slip));
    const int steps = static_cast<int>(std::lround(0.5 / (speed * kDt)));
    double sinkage = 0, pull = 0, driving = 0, normal = 0;
    int count = 0;
    for (int k = 0; k < steps; k++) {
        rig.Step(position, velocity, omega, force, torque);
        velocity.z() += kDt * (force.z() - load) / mass;
        position.z() += kDt * velocity.z();
        position.x() += kDt * speed;
        if (position.x() >= 0.3) {
            sinkage += radius - position.z();
            pull += force.x();
            driving += -torque.y();
            normal += force.z();
            count++;
        }
    }
    std::printf("%.4f %.9g %.9g %.9g %.9g\n", slip, sinkage / count, pull / count, driving / count, normal / count);
}

// The link (axis along x) settled under gravity, ramped in over 0.5 s and held to 1.5 s.
Rig LinkRig(const Soil& soil, const Bulldozing& bulldozing, double spacing) {
    return Rig(soil, bulldozing, spacing, kLinkMassKg, CylinderArc(kLinkRadiusM, kLinkHalfLengthM, 90.0, true),
               ChVector3d(0, 0, -kLinkRadiusM + 0.04), ChVector3d(2 * kLinkHalfLengthM + 0.02, 2 * kLinkRadiusM + 0.02, 0.08));
}

void SettleLink(Rig& rig, ChVector3d& position, ChVector3d& velocity, ChVector3d& force) {
    ChVector3d torque;
    for (int k = 0; k < 1500; k++) {
        rig.Step(position, velocity, VNULL, force, torque);
        velocity.z() += kDt * (force.z() / kLinkMassKg - kGravity * Smoothstep((k + 1) / 500.0));
        position.z() += kDt * velocity.z();
    }
}

void RunLinkHold(const Soil& soil, const Bulldozing& bulldozing, double spacing, double fraction, bool midway,
                 double hold_s) {
    Rig rig = LinkRig(soil, bulldozing, spacing);
    ChVector3d position(0.5 * spacing, midway ? 0.5 * spacing : 0.0, kLinkRadiusM), velocity(0, 0, 0), force, torque;
    SettleLink(rig, position, velocity, force);
    const double side = fraction * force.z() * std::tan(soil.friction_deg * CH_PI / 180.0);
    const double start = position.y();
    const int ramp = 2000, steps = ramp + static_cast<int>(std::lround(hold_s / kDt));
    double at_ramp_end = 0, one_second_before = 0;
    for (int k = 0; k < steps; k++) {
        rig.Step(position, velocity, VNULL, force, torque);
        velocity += kDt * (force / kLinkMassKg + ChVector3d(0, Smoothstep((k + 1.0) / ramp) * side / kLinkMassKg, -kGravity));
        position += kDt * velocity;
        if (k == ramp - 1)
            at_ramp_end = position.y() - start;
        if (k == steps - 1001)
            one_second_before = position.y() - start;
    }
    const double moved = position.y() - start;
    std::printf("%.9g %.9g %.9g\n", at_ramp_end, moved, moved - one_second_before);
}

void RunLinkDrag(const Soil& soil, const Bulldozing& bulldozing, double spacing, double speed, double distance) {
    Rig rig = LinkRig(soil, bulldozing, spacing);
    ChVector3d position(0.5 * spacing, 0.5 * spacing, kLinkRadiusM), velocity(0, 0, 0), force, torque;
    SettleLink(rig, position, velocity, force);
    velocity.y() = speed;
    const int steps = static_cast<int>(std::lround(distance / (speed * kDt)));
    double sum = 0, most = 0;
    int count = 0;
    for (int k = 0; k < steps; k++) {
        rig.Step(position, velocity, VNULL, force, torque);
        velocity.z() += kDt * (force.z() / kLinkMassKg - kGravity);
        position.z() += kDt * velocity.z();
        position.y() += kDt * speed;
        if (k >= 0.6 * steps && force.z() > 0) {
            sum += -force.y() / force.z();
            most = std::fmax(most, -force.y() / force.z());
            count++;
        }
    }
    std::printf("%.9g %.9g\n", sum / count, most);
}

int Usage(const char* program) {
    std::fprintf(stderr,
                 "usage: %s wheel SOIL radius_m width_m load_n speed_m_s spacing_m slip [slip ...]\n"
                 "       %s link-hold SOIL BULLDOZING spacing_m side_load_fraction midway hold_s\n"
                 "       %s link-drag SOIL BULLDOZING spacing_m speed_m_s distance_m\n"
                 "  SOIL = Kphi Kc n c phi_deg janosi_m K R; BULLDOZING = on erosion_angle flow_factor iterations "
                 "propagations\n",
                 program, program, program);
    return 2;
}

}  // namespace

int main(int argc, char* argv[]) {
    if (argc < 10)
        return Usage(argv[0]);
    const std::string mode = argv[1];
    std::vector<double> v;
    for (int i = 2; i < argc; i++)
        v.push_back(std::atof(argv[i]));
    const Soil soil{v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]};
    if (mode == "wheel" && v.size() >= 14) {
        for (size_t i = 13; i < v.size(); i++)
            RunWheel(soil, v[8], v[9], v[10], v[11], v[12], v[i]);
        return 0;
    }
    if ((mode == "link-hold" && v.size() == 17) || (mode == "link-drag" && v.size() == 16)) {
        const Bulldozing bulldozing{v[8] != 0, v[9], v[10], static_cast<int>(v[11]), static_cast<int>(v[12])};
        if (mode == "link-hold")
            RunLinkHold(soil, bulldozing, v[13], v[14], v[15] != 0, v[16]);
        else
            RunLinkDrag(soil, bulldozing, v[13], v[14], v[15]);
        return 0;
    }
    return Usage(argv[0]);
}
