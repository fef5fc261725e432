"""DEM ROS mode, pure parts (cobra_dem.ros_mode): bed frame -> odom (z up, slope descending
+x like the sim's rigid slope), body twist/wrench in body axes, the particle-surface heightmap,
progress figures and the background sample stream."""

from __future__ import annotations

import math
import threading
from collections.abc import Iterator
from types import SimpleNamespace

import numpy as np
import pytest

from cobra_common.rotations import matrix_from_quaternion, quaternion_from_matrix
from cobra_dem.ros_mode import (DemFrameBuilder, OdomPlacement, OverrideError, SampleStream, body_fields,
                                    parse_overrides, progress_values, surface_heightmap, wrap_into_window)
from cobra_common.heightmap_cloud import FLOAT32, POINT_STEP, cloud_points, field_layout, pack_heightmap

SLOPE_DEG = 24.0
GRAVITY_M_S2 = 9.8
BED_LENGTH_M, BED_WIDTH_M = 0.5, 0.16
RADIUS_M = 0.2


def placement(slope_deg: float = SLOPE_DEG, sinkage_m: float = 0.004) -> OdomPlacement:
    """Wheel (r = 0.2 m) centred at bed x = 0.15 on a surface 20 mm above the bed's base."""
    return OdomPlacement.from_first_sample(slope_deg, np.array([0.15, 0.08, 0.020 + RADIUS_M - sinkage_m]),
                                           0.020, BED_LENGTH_M, BED_WIDTH_M)


def rotation_about_y(angle_rad: float) -> np.ndarray:
    c, s = math.cos(angle_rad), math.sin(angle_rad)
    return np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])


def test_bed_gravity_points_down_in_odom_and_the_bed_descends_along_plus_x() -> None:
    frame = placement()
    theta = math.radians(SLOPE_DEG)
    gravity_bed = np.array([math.sin(theta), 0.0, -math.cos(theta)])     # Scenario.gravity_vector
    np.testing.assert_allclose(frame.vectors(gravity_bed), [0.0, 0.0, -1.0], atol=1e-12)
    downslope_odom = frame.vectors([1.0, 0.0, 0.0])
    assert downslope_odom[0] > 0.0 and downslope_odom[2] < 0.0            # forward = downhill
    assert math.degrees(math.atan2(-downslope_odom[2], downslope_odom[0])) == pytest.approx(SLOPE_DEG)


def test_odom_origin_is_the_undisturbed_surface_under_the_first_body_sample() -> None:
    sinkage_m = 0.004
    frame = placement(sinkage_m=sinkage_m)
    np.testing.assert_allclose(frame.points([0.15, 0.08, 0.020]), 0.0, atol=1e-12)
    # the wheel centre sits r - sinkage above the surface, along the bed normal (tilted in odom)
    centre = frame.points([0.15, 0.08, 0.020 + RADIUS_M - sinkage_m])
    theta = math.radians(SLOPE_DEG)
    np.testing.assert_allclose(centre, (RADIUS_M - sinkage_m) * np.array([math.sin(theta), 0, math.cos(theta)]),
                               atol=1e-12)
    # the undisturbed surface plane: every bed point at the surface height lies at surface_z_m
    on_surface = frame.points(np.array([[0.0, 0.0, 0.020], [0.4, 0.15, 0.020], [-0.3, 0.05, 0.020]]))
    np.testing.assert_allclose(on_surface[:, 2], frame.surface_z_m(on_surface[:, 0]), atol=1e-12)


def test_rolling_wheel_twist_is_in_its_own_axes_and_maps_back_to_the_odom_velocity() -> None:
    frame = placement()
    speed_m_s, theta = 0.157, math.radians(SLOPE_DEG)
    spin_rad = 0.7                                           # the wheel turned about its axle (bed y)
    rotation_bed = rotation_about_y(spin_rad)
    body = {'position_m': np.array([0.3, 0.08, 0.2]), 'quaternion_xyzw': quaternion_from_matrix(rotation_bed),
            'velocity_m_s': np.array([speed_m_s, 0.0, 0.0]),
            'angular_velocity_rad_s': np.array([0.0, speed_m_s / RADIUS_M, 0.0]),
            'contact_force_n': np.zeros(3), 'contact_torque_nm': np.zeros(3)}
    fields = body_fields(frame, 1.5, body)
    odom_from_body = matrix_from_quaternion(fields.orientation_xyzw)
    np.testing.assert_allclose(odom_from_body, rotation_about_y(theta + spin_rad), atol=1e-12)
    velocity_odom = odom_from_body @ fields.linear_velocity_m_s
    np.testing.assert_allclose(velocity_odom, speed_m_s * np.array([math.cos(theta), 0.0, -math.sin(theta)]),
                               atol=1e-12)                   # downhill, losing height
    np.testing.assert_allclose(odom_from_body @ fields.angular_velocity_rad_s, [0.0, speed_m_s / RADIUS_M, 0.0],
                               atol=1e-12)                   # rolling forward = +y spin
    np.testing.assert_allclose(np.linalg.norm(fields.linear_velocity_m_s), speed_m_s)
    assert fields.t_s == 1.5


def test_contact_force_holding_a_resting_wheel_points_straight_up_in_odom() -> None:
    frame = placement()
    mass_kg, theta = 6.0, math.radians(SLOPE_DEG)
    gravity_bed = GRAVITY_M_S2 * mass_kg * np.array([math.sin(theta), 0.0, -math.cos(theta)])
    rng = np.random.default_rng(3)
    rotation_bed = np.linalg.qr(rng.normal(size=(3, 3)))[0]
    rotation_bed *= np.sign(np.linalg.det(rotation_bed))    # any orientation of the body
    body = {'position_m': np.zeros(3), 'quaternion_xyzw': quaternion_from_matrix(rotation_bed),
            'velocity_m_s': np.zeros(3), 'angular_velocity_rad_s': np.zeros(3),
            'contact_force_n': -gravity_bed, 'contact_torque_nm': np.array([0.0, 1.2, 0.0])}
    fields = body_fields(frame, 0.0, body)
    odom_from_body = matrix_from_quaternion(fields.orientation_xyzw)
    np.testing.assert_allclose(odom_from_body @ fields.force_n, [0.0, 0.0, mass_kg * GRAVITY_M_S2], atol=1e-9)
    np.testing.assert_allclose(odom_from_body @ fields.torque_nm, [0.0, 1.2, 0.0], atol=1e-12)  # axle stays y
    assert np.linalg.norm(fields.force_n) == pytest.approx(mass_kg * GRAVITY_M_S2)


def grain_layer(surface_m: float, radius_m: float, spacing_m: float, length_m: float = BED_LENGTH_M,
                width_m: float = BED_WIDTH_M) -> np.ndarray:
    """Top layer of grains whose tops touch the bed-frame height surface_m."""
    x, y = np.meshgrid(np.arange(0.5 * spacing_m, length_m, spacing_m), np.arange(0.5 * spacing_m, width_m, spacing_m),
                       indexing='ij')                         # half a spacing off the cell edges
    return np.stack([x.ravel(), y.ravel(), np.full(x.size, surface_m - radius_m)], axis=1)


def test_heightmap_of_a_flat_bed_is_the_undisturbed_surface_and_a_dent_is_sinkage() -> None:
    frame = placement(slope_deg=0.0)
    grains = grain_layer(0.020, 0.003, 0.002)
    dent = (np.abs(grains[:, 0] - 0.15) < 0.05) & (np.abs(grains[:, 1] - 0.08) < 0.03)
    grains[dent, 2] -= 0.006                                   # a 6 mm rut under the wheel
    heightmap = surface_heightmap(frame, grains, np.full(len(grains), 0.003), np.array([0.15, 0.08, 0.2]), 0.01)
    assert len(heightmap.x_m) == 50 * 16                       # 0.5 m x 0.16 m in 1 cm cells
    in_rut = (np.abs(heightmap.x_m) < 0.04) & (np.abs(heightmap.y_m) < 0.02)
    outside = (np.abs(heightmap.x_m) > 0.07) | (np.abs(heightmap.y_m) > 0.05)
    np.testing.assert_allclose(heightmap.z_m[outside], 0.0, atol=1e-12)
    np.testing.assert_allclose(heightmap.sinkage_m[in_rut], 0.006, atol=1e-12)
    np.testing.assert_allclose(heightmap.sinkage_m[outside], 0.0, atol=1e-12)
    assert np.all(heightmap.pressure_pa == 0.0)


def test_heightmap_on_the_slope_follows_the_tilted_surface_within_a_cell() -> None:
    frame = placement()
    cell_m = 0.01
    grains = grain_layer(0.020, 0.003, 0.001)
    heightmap = surface_heightmap(frame, grains, np.full(len(grains), 0.003), np.array([0.15, 0.08, 0.2]), cell_m)
    # the highest top in a cell lies on the cell's uphill edge, half a cell's drop above the centre
    # (sphere tops 0.09 r = 0.3 mm lower along odom z than along the bed normal; 1 mm grain spacing)
    drop_m = 0.5 * cell_m * math.tan(math.radians(SLOPE_DEG))
    interior = np.abs(heightmap.x_m) < 0.2
    assert np.all(heightmap.sinkage_m[interior] >= -drop_m - 1e-6)
    assert np.all(heightmap.sinkage_m[interior] <= -drop_m + 1e-3)
    # the map spans one bed period around the body, tilted: x over L cos(theta)
    span_m = heightmap.x_m.max() - heightmap.x_m.min()
    assert BED_LENGTH_M * math.cos(math.radians(SLOPE_DEG)) - 2 * cell_m < span_m \
        < BED_LENGTH_M * math.cos(math.radians(SLOPE_DEG)) + 2 * cell_m


def test_heightmap_window_follows_the_body_over_the_periodic_bed() -> None:
    frame = placement()
    grains = grain_layer(0.020, 0.003, 0.004)
    radius_m = np.full(len(grains), 0.003)
    unwrapped = grains.copy()
    unwrapped[::3, 0] += 2 * BED_LENGTH_M                      # some grains crossed the seam twice
    unwrapped[1::3, 1] -= BED_WIDTH_M
    body_travelled = np.array([0.15 + 3.3 * BED_LENGTH_M, 0.08, 0.2])
    under_body_odom_x = frame.points([body_travelled[0], 0.08, 0.020])[0]   # surface point below its centre
    heightmap = surface_heightmap(frame, unwrapped, radius_m, body_travelled, 0.01)
    centre_x = 0.5 * (heightmap.x_m.max() + heightmap.x_m.min())
    assert abs(centre_x - under_body_odom_x) < 0.02            # the window moved with the body
    at_start = surface_heightmap(frame, grains, radius_m, np.array([0.15, 0.08, 0.2]), 0.01)
    assert abs(len(heightmap.x_m) - len(at_start.x_m)) <= 16   # one period either way (a cell column)
    np.testing.assert_allclose(np.sort(wrap_into_window(np.array([-0.26, 0.24, 0.76]), 0.0, 0.5)),
                               [-0.24, 0.24, 0.24], atol=1e-12)


def test_heightmap_packs_into_the_terrain_heightmap_cloud_format() -> None:
    frame = placement()
    grains = grain_layer(0.020, 0.003, 0.004)
    heightmap = surface_heightmap(frame, grains, np.full(len(grains), 0.003), np.array([0.15, 0.08, 0.2]), 0.01)
    data, count = pack_heightmap(heightmap)
    assert count == len(heightmap.x_m) and len(data) == count * POINT_STEP
    fields = [(name, offset, FLOAT32) for name, offset in field_layout()]
    points = cloud_points(fields, POINT_STEP, data, count, 1)
    np.testing.assert_allclose(points['z'], heightmap.z_m, atol=1e-6)
    np.testing.assert_allclose(points['sinkage'], heightmap.sinkage_m, atol=1e-6)


def test_heightmap_refuses_a_zero_cell() -> None:
    with pytest.raises(ValueError, match='cell size'):
        surface_heightmap(placement(), np.zeros((3, 3)), np.full(3, 0.003), np.zeros(3), 0.0)


def test_frame_builder_anchors_odom_once_and_makes_heightmaps_on_the_period_grid() -> None:
    grains = grain_layer(0.020, 0.003, 0.004)
    builder = DemFrameBuilder(SLOPE_DEG, heightmap_period_s=0.25, cell_m=0.01)
    heightmap_times: list[float] = []
    for k in range(11):                                        # samples every 0.1 s, grains at each
        t_s = 0.1 * k
        x_m = 0.15 + 0.157 * t_s                               # rolling downslope
        sample = SimpleNamespace(
            t_s=t_s, sinkage_m=0.004, surface_m=0.020, final=k == 10, grain_positions_m=grains if k != 2 else None,
            grain_radius_m=np.full(len(grains), 0.003), bed_length_m=BED_LENGTH_M, bed_width_m=BED_WIDTH_M,
            body={'position_m': np.array([x_m, 0.08, 0.216]), 'quaternion_xyzw': np.array([0.0, 0, 0, 1.0]),
                  'velocity_m_s': np.array([0.157, 0, 0]), 'angular_velocity_rad_s': np.zeros(3),
                  'contact_force_n': np.zeros(3), 'contact_torque_nm': np.zeros(3)})
        frame = builder(sample)
        if frame.heightmap is not None:
            heightmap_times.append(round(frame.t_s, 6))
        if k == 0:
            np.testing.assert_allclose(frame.body.position_m[[0, 1]],
                                       [(RADIUS_M - 0.004) * math.sin(math.radians(SLOPE_DEG)), 0.0], atol=1e-12)
    assert heightmap_times == [0.0, 0.3, 0.5, 0.8, 1.0]         # first snapshot at or after each 0.25 s
    assert frame.final and frame.t_s == pytest.approx(1.0)
    # odom stayed anchored at the first sample: 1 s of rolling moved the wheel 0.157 m along the slope
    assert frame.body.position_m[0] == pytest.approx((RADIUS_M - 0.004) * math.sin(math.radians(SLOPE_DEG))
                                                     + 0.157 * math.cos(math.radians(SLOPE_DEG)))


def test_parse_overrides_reads_yaml_values_and_refuses_a_missing_equals_sign() -> None:
    assert parse_overrides(['body.motion=free', 'slope_deg=20.5', 'duration_s = 1']) == \
        {'body.motion': 'free', 'slope_deg': 20.5, 'duration_s': 1}
    with pytest.raises(OverrideError, match='key=value'):
        parse_overrides(['slope_deg'])


def test_progress_values() -> None:
    values = progress_values(0.5, 2.0, 30.0)
    assert values['progress_percent'] == pytest.approx(25.0)
    assert values['eta_s'] == pytest.approx(90.0)              # 3 more quarters at 30 s each
    assert values['real_time_factor'] == pytest.approx(0.5 / 30.0)
    assert math.isnan(progress_values(0.0, 2.0, 5.0)['eta_s'])
    assert progress_values(3.0, 2.0, 5.0)['progress_percent'] == 100.0


class FakeRun:
    """A generator standing in for a DEM backend: records close(), can block before a sample."""

    def __init__(self, count: int, first_sample_gate: threading.Event | None = None,
                 fail_at: int | None = None) -> None:
        self.count, self.gate, self.fail_at = count, first_sample_gate, fail_at
        self.closed = threading.Event()

    def samples(self) -> Iterator[int]:
        try:
            if self.gate is not None:
                self.gate.wait()
            for k in range(self.count):
                if k == self.fail_at:
                    raise RuntimeError('engine failed')
                yield k
        finally:
            self.closed.set()


def drain(stream: SampleStream, expected: int) -> list[object]:
    frames: list[object] = []
    while len(frames) < expected:
        frames += stream.take(10)
    return frames


def test_sample_stream_delivers_every_converted_sample_in_order_then_is_exhausted() -> None:
    run = FakeRun(25)
    stream = SampleStream(run.samples, lambda k: k * 10, queue_size=2)   # a full queue makes the worker wait
    stream.start()
    assert drain(stream, 25) == [10 * k for k in range(25)]
    assert run.closed.wait(10.0)
    stream.stop(None, 10.0)
    assert stream.exhausted and stream.take(5) == []


def test_sample_stream_stop_closes_the_generator_and_interrupts_the_engine() -> None:
    run = FakeRun(10_000)
    interrupted: list[bool] = []
    stream = SampleStream(run.samples, lambda k: k, queue_size=1)
    stream.start()
    assert drain(stream, 1) == [0]
    assert stream.stop(lambda: interrupted.append(True), 10.0)
    assert run.closed.is_set() and interrupted == [True]


def test_sample_stream_never_interrupts_before_the_first_sample() -> None:
    gate = threading.Event()                                   # the backend is still settling its bed
    run = FakeRun(3, first_sample_gate=gate)
    interrupted: list[bool] = []
    stream = SampleStream(run.samples, lambda k: k)
    stream.start()
    assert not stream.stop(lambda: interrupted.append(True), 0.05)
    assert interrupted == []                                   # cutting a settle short would cache it unsettled
    gate.set()                                                 # the worker then ends at its first sample
    assert run.closed.wait(10.0)


def test_sample_stream_hands_the_engine_error_to_the_main_thread_after_its_frames() -> None:
    run = FakeRun(5, fail_at=2)
    stream = SampleStream(run.samples, lambda k: k)
    stream.start()
    assert run.closed.wait(10.0)
    assert stream.take(10) == [0, 1]
    with pytest.raises(RuntimeError, match='engine failed'):
        stream.take(10)
