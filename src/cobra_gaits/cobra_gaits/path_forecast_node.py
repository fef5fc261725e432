"""Path forecast node: the predicted path of the gait being played, as nav_msgs/Path.

Beside the gait node (issue 12): it follows the gait node's sidewinding parameters, forecasts
`cycles` cycles with the contact-weighted predictor and publishes them from the latest `odom` pose
on `gait/predicted_path`. Design notes: the package README, "cobra_gaits.path_forecast_node".
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from geometry_msgs.msg import PoseStamped
from nav_msgs.msg import Odometry, Path
from rcl_interfaces.msg import ParameterEvent
from rcl_interfaces.srv import GetParameters
from rclpy.clock import Clock, ClockType
from rclpy.node import Node
from rclpy.parameter import parameter_value_to_python
from rclpy.parameter_client import AsyncParameterClient
from rclpy.qos import (DurabilityPolicy, QoSProfile, ReliabilityPolicy, qos_profile_parameter_events,
                       qos_profile_sensor_data)
from rclpy.task import Future

from cobra_common.frames import frame_prefix_problem
from cobra_common.node_runtime import declare_table
from cobra_common.ros_entry import StartupError, run_node
from cobra_description.robot_model import RobotModelError, load_robot_model
from cobra_gaits.path_forecast_config import PARAMETERS, RUNTIME_PARAMETERS
from cobra_gaits.predictor.curve import PredictorError
from cobra_gaits.predictor.gait_path import BodyModel, BodyPath, forecast_body_path, place_body_path
from cobra_gaits.presets import CSV_GAIT, LTS_GAIT
from cobra_gaits.sidewinding import GaitError, SidewindingParams

PATH_QOS = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.TRANSIENT_LOCAL)
GAIT_TUNABLES = ('frequency_hz', 'amplitude_vertical_rad', 'amplitude_horizontal_rad', 'direction')
GAIT_NAME = 'gait'  # the gait node's gait: csv and lts play no sidewinding this node can forecast
NO_SIDEWINDING = (CSV_GAIT, LTS_GAIT)
POLL_PERIOD_S = 0.5  # how often to look for the gait node's parameter services until it answered


def declare_parameters(node: Node) -> dict[str, Any]:
    """Declare every path_forecast parameter (path_forecast_config.PARAMETERS); StartupError for a
    bad frame prefix."""
    values = declare_table(node, PARAMETERS, RUNTIME_PARAMETERS)
    if (problem := frame_prefix_problem(values['frame_prefix'])) is not None:
        raise StartupError(problem)
    return values


def resolve_node_name(name: str, namespace: str) -> str:
    """Fully qualified node name as /parameter_events reports it."""
    if name.startswith('/'):
        return name
    return f"{namespace.rstrip('/')}/{name}"


@dataclass(frozen=True)
class ForecastRequest:
    params: SidewindingParams
    position_m: tuple[float, float, float]
    quaternion_xyzw: tuple[float, float, float, float]
    stamp_ns: int


class LatestOnlyWorker:
    """One thread that runs `work` on the newest request handed to it; older pending ones are dropped."""

    def __init__(self, work: Callable[[ForecastRequest], None]) -> None:
        self._work = work
        self._condition = threading.Condition()
        self._pending: ForecastRequest | None = None
        self._stopping = False
        self._thread = threading.Thread(target=self._run, name='path_forecast', daemon=True)
        self._thread.start()

    def submit(self, request: ForecastRequest) -> None:
        with self._condition:
            self._pending = request
            self._condition.notify()

    def stop(self) -> None:
        with self._condition:
            self._stopping = True
            self._condition.notify()
        self._thread.join(timeout=5.0)

    def _run(self) -> None:
        while True:
            with self._condition:
                while self._pending is None and not self._stopping:
                    self._condition.wait()
                if self._stopping:
                    return
                request, self._pending = self._pending, None
            self._work(request)


class PathForecastNode(Node):
    def __init__(self) -> None:
        super().__init__('path_forecast')
        p = declare_parameters(self)
        try:
            self._robot = load_robot_model(p['urdf_path'] or None)
            self._body = BodyModel.from_robot(self._robot)
        except (RobotModelError, PredictorError) as error:
            raise StartupError(str(error)) from error
        self._cycles, self._steps = p['cycles'], p['steps_per_cycle']
        self._epsilon, self._band_m = p['epsilon'], p['contact_band_m']
        self._frame_id = f"{p['frame_prefix']}odom"
        self._gait_node = resolve_node_name(p['gait_node'], self.get_namespace())
        self._gait_values: dict[str, Any] = {}  # newest known values of the gait node's parameters
        self._answered = False  # the gait node answered get_parameters once
        self._pending_get: Future | None = None
        self._position_m = (0.0, 0.0, 0.0)
        self._quaternion_xyzw = (0.0, 0.0, 0.0, 1.0)
        self._cache: tuple[SidewindingParams, BodyPath] | None = None  # touched by the worker only

        self._publisher = self.create_publisher(Path, 'gait/predicted_path', PATH_QOS)
        self._client = AsyncParameterClient(self, self._gait_node)
        self.create_subscription(ParameterEvent, '/parameter_events', self._on_parameter_event,
                                 qos_profile_parameter_events)
        self.create_subscription(Odometry, 'odom', self._on_odom, qos_profile_sensor_data)
        self._worker = LatestOnlyWorker(self._forecast_and_publish)
        # wall (steady) time: the gait node is found also before a sim publishes /clock
        self.create_timer(POLL_PERIOD_S, self._ask_gait_node, clock=Clock(clock_type=ClockType.STEADY_TIME))
        if p['republish_period_s'] > 0.0:
            self.create_timer(p['republish_period_s'], self._request)
        self.get_logger().info(f"forecasting {self._cycles} cycles of {self._gait_node}'s gait on "
                               f'gait/predicted_path (frame {self._frame_id}, eps {self._epsilon:g})')

    # ------------------------------------------------------------ inputs (store and hand over only)

    def _ask_gait_node(self) -> None:
        if self._answered or self._pending_get is not None or not self._client.services_are_ready():
            return
        self._pending_get = self._client.get_parameters([*GAIT_TUNABLES, GAIT_NAME])
        self._pending_get.add_done_callback(self._on_gait_parameters)

    def _on_gait_parameters(self, future: Future) -> None:
        self._pending_get = None
        response: GetParameters.Response | None = future.result()
        if response is None or len(response.values) != len(GAIT_TUNABLES) + 1:
            return  # asked again at the next poll
        values = {name: parameter_value_to_python(value)
                  for name, value in zip([*GAIT_TUNABLES, GAIT_NAME], response.values)}
        self._answered = True
        self._gait_values = {**values, **self._gait_values}  # an event newer than the answer wins
        self._request()

    def _on_parameter_event(self, event: ParameterEvent) -> None:
        if event.node != self._gait_node:
            return
        changed = {parameter.name: parameter_value_to_python(parameter.value)
                   for parameter in [*event.new_parameters, *event.changed_parameters]
                   if parameter.name in (*GAIT_TUNABLES, GAIT_NAME)}
        if changed:
            self._gait_values.update(changed)
            self._request()

    def _on_odom(self, message: Odometry) -> None:
        pose = message.pose.pose
        self._position_m = (pose.position.x, pose.position.y, pose.position.z)
        self._quaternion_xyzw = (pose.orientation.x, pose.orientation.y, pose.orientation.z, pose.orientation.w)

    def _request(self) -> None:
        """Hand the newest gait and pose to the worker (nothing until the gait is known and forecastable)."""
        values = self._gait_values
        if any(name not in values for name in GAIT_TUNABLES):
            return
        if values.get(GAIT_NAME) in NO_SIDEWINDING:
            self.get_logger().warning(f"{self._gait_node} plays gait '{values[GAIT_NAME]}': no sidewinding "
                                      'to forecast, no path published', throttle_duration_sec=60.0)
            return
        try:
            params = SidewindingParams(float(values['frequency_hz']), float(values['amplitude_vertical_rad']),
                                       float(values['amplitude_horizontal_rad']), str(values['direction'])).validated()
        except (GaitError, TypeError, ValueError) as error:
            self.get_logger().warning(f'{self._gait_node} has gait parameters the forecast cannot use: {error}',
                                      throttle_duration_sec=10.0)
            return
        self._worker.submit(ForecastRequest(params, self._position_m, self._quaternion_xyzw,
                                            self.get_clock().now().nanoseconds))

    # ------------------------------------------------------------ worker thread

    def _forecast_and_publish(self, request: ForecastRequest) -> None:
        try:
            if self._cache is None or self._cache[0] != request.params:
                self._cache = (request.params, forecast_body_path(
                    self._robot, self._body, request.params, self._cycles, self._steps, self._epsilon,
                    self._band_m))
        except (PredictorError, GaitError, np.linalg.LinAlgError) as error:  # the worker must live on
            self.get_logger().warning(f'forecast failed for {request.params}: {error}', throttle_duration_sec=10.0)
            return
        placed = place_body_path(self._cache[1], request.position_m, request.quaternion_xyzw)
        message = Path()
        message.header.frame_id = self._frame_id
        message.header.stamp.sec, message.header.stamp.nanosec = divmod(request.stamp_ns, 1_000_000_000)
        for time_s, position, quaternion in zip(placed.times_s, placed.positions_m, placed.quaternions_xyzw):
            pose = PoseStamped()
            pose.header.frame_id = self._frame_id
            pose.header.stamp.sec, pose.header.stamp.nanosec = divmod(
                request.stamp_ns + round(time_s * 1e9), 1_000_000_000)
            pose.pose.position.x, pose.pose.position.y, pose.pose.position.z = (float(v) for v in position)
            (pose.pose.orientation.x, pose.pose.orientation.y, pose.pose.orientation.z,
             pose.pose.orientation.w) = (float(v) for v in quaternion)
            message.poses.append(pose)
        self._publisher.publish(message)

    def destroy_node(self) -> None:
        self._worker.stop()
        super().destroy_node()


def main(args: list[str] | None = None) -> int:
    return run_node(PathForecastNode, args)


if __name__ == '__main__':
    raise SystemExit(main())
