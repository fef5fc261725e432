"""Navigate node: the `navigate_to_pose` action (cobra_interfaces/NavigateToPose) on odometry,
publishing `cmd_vel` for the gait node's gait:=cmd_vel; a thin shell around
cobra_gaits.goal_controller and cobra_gaits.body_pose (how goals run and end: the package README)."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

from builtin_interfaces.msg import Duration as DurationMsg
from geometry_msgs.msg import Pose, PoseStamped, Twist
from nav_msgs.msg import Odometry
from sensor_msgs.msg import JointState
from rclpy.action import ActionServer, CancelResponse, GoalResponse
from rclpy.action.server import ServerGoalHandle
from rclpy.node import Node
from rclpy.qos import QoSProfile, ReliabilityPolicy, qos_profile_sensor_data
from rclpy.task import Future

from cobra_common.frames import frame_prefix_problem
from cobra_common.config_check import ConfigError, check_values
from cobra_common.node_runtime import declare_table
from cobra_common.ros_entry import StartupError, run_node
from cobra_common.rotations import yaw_from_quaternion
from cobra_description.robot_model import RobotModelError, default_urdf_path, load_robot_model
from cobra_gaits.body_pose import BodyPoseEstimator
from cobra_gaits.cmd_vel import Twist2D
from cobra_gaits.goal_controller import GoalController, GoalMode, GoalSettings, GoalStatus, Phase
from cobra_gaits.navigate_config import PARAMETERS, goal_problem, goal_settings_for, goal_settings_table
from cobra_interfaces.action import NavigateToPose
from cobra_interfaces.msg import NavigationStatus

ACTION_NAME = 'navigate_to_pose'
STATUS_TOPIC = 'navigation/status'
RELIABLE = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)
ODOM_QOS = QoSProfile(depth=20, reliability=ReliabilityPolicy.RELIABLE)
HOUSEKEEPING_PERIOD_S = 0.1  # cancel and odometry-timeout checks [s, wall]


def declare_parameters(node: Node) -> dict[str, Any]:
    """Declare every navigate_node parameter (navigate_config's tables): the robot's controller
    defaults, overridable one by one."""
    base = declare_table(node, PARAMETERS, runtime=())
    try:
        check_values(PARAMETERS, base, node.get_name())  # robot: one of ROBOTS
    except ConfigError as error:
        raise StartupError(str(error)) from None
    if problem := frame_prefix_problem(base['frame_prefix']):
        raise StartupError(problem)
    settings = declare_table(node, goal_settings_table(base['robot']), runtime=())
    try:
        GoalSettings(**settings).validated()
    except ValueError as error:
        raise StartupError(str(error)) from error
    return {**base, 'settings': settings}


def planar_pose(x_m: float, y_m: float, yaw_rad: float) -> Pose:
    """A pose in the ground plane (the controller's body estimate) as geometry_msgs/Pose."""
    pose = Pose()
    pose.position.x, pose.position.y = float(x_m), float(y_m)
    pose.orientation.z, pose.orientation.w = math.sin(yaw_rad / 2.0), math.cos(yaw_rad / 2.0)
    return pose


def duration_message(seconds: float) -> DurationMsg:
    whole = math.floor(max(seconds, 0.0))
    return DurationMsg(sec=int(whole), nanosec=int((max(seconds, 0.0) - whole) * 1e9))


@dataclass
class ActiveGoal:
    handle: ServerGoalHandle
    controller: GoalController
    goal: PoseStamped
    mode: int
    done: Future
    start_s: float | None = None  # odometry time of the first update
    last_feedback_s: float = -math.inf
    last_status: GoalStatus | None = None


class NavigateNode(Node):
    def __init__(self) -> None:
        super().__init__('navigate_node')
        p = declare_parameters(self)
        self._settings = GoalSettings(**p['settings'])
        self._frame = f"{p['frame_prefix']}odom"
        self._goal_timeout_s = p['goal_timeout_s']
        self._odom_timeout_s = p['odom_timeout_s']
        self._feedback_period_s = p['feedback_period_s']
        try:
            model = load_robot_model(p['urdf_path'] or default_urdf_path(p['robot']))
            self._body = BodyPoseEstimator(model)
        except (RobotModelError, ValueError) as error:
            raise StartupError(str(error)) from error
        self._joint_positions: dict[str, float] | None = None
        self._active: ActiveGoal | None = None
        self._last_odom: tuple[float, float, float, float] | None = None  # (stamp, x, y, yaw)
        self._last_odom_wall = time.monotonic()
        self._cmd_vel = self.create_publisher(Twist, 'cmd_vel', RELIABLE)
        self._status = self.create_publisher(NavigationStatus, STATUS_TOPIC, RELIABLE)
        self.create_subscription(Odometry, 'odom', self._on_odom, ODOM_QOS)
        self.create_subscription(JointState, 'joint_states', self._on_joint_states, qos_profile_sensor_data)
        self._server = ActionServer(self, NavigateToPose, ACTION_NAME, execute_callback=self._execute,
                                    goal_callback=self._on_goal, cancel_callback=lambda _: CancelResponse.ACCEPT)
        self.create_timer(HOUSEKEEPING_PERIOD_S, self._housekeeping)
        self.get_logger().info(f"navigate_to_pose ready: goals in '{self._frame}', cmd_vel from odom "
                               f'(cruise {self._settings.cruise_m_s:g} m/s)')

    def _on_goal(self, request: NavigateToPose.Goal) -> GoalResponse:
        problem = self._goal_problem(request)
        if problem:
            self.get_logger().error(f'navigate_to_pose: goal refused: {problem}')
            return GoalResponse.REJECT
        return GoalResponse.ACCEPT

    def _goal_problem(self, request: NavigateToPose.Goal) -> str | None:
        position, q = request.pose.pose.position, request.pose.pose.orientation
        return goal_problem(request.pose.header.frame_id, self._frame, (position.x, position.y),
                            (q.x, q.y, q.z, q.w), request.position_tolerance_m, request.heading_tolerance_rad,
                            request.mode)

    async def _execute(self, handle: ServerGoalHandle) -> NavigateToPose.Result:
        request: NavigateToPose.Goal = handle.request
        if self._active is not None:
            self._finish(NavigateToPose.Result.CODE_CANCELED, 'preempted by a newer goal', aborted=True)
        orientation = request.pose.pose.orientation
        settings = goal_settings_for(self._settings, request.position_tolerance_m, request.heading_tolerance_rad)
        yaw = yaw_from_quaternion((orientation.x, orientation.y, orientation.z, orientation.w)) \
            if request.mode != NavigateToPose.Goal.MODE_POSITION else 0.0
        controller = GoalController(request.pose.pose.position.x, request.pose.pose.position.y, yaw,
                                    GoalMode(request.mode), settings)
        done = Future(executor=self.executor)
        self._active = ActiveGoal(handle, controller, request.pose, request.mode, done)
        self._last_odom_wall = time.monotonic()
        self.get_logger().info(f'navigate_to_pose: goal ({request.pose.pose.position.x:.3f}, '
                               f'{request.pose.pose.position.y:.3f}) yaw {math.degrees(yaw):.1f} deg, '
                               f'mode {GoalMode(request.mode).name}')
        self._publish_status(NavigationStatus.STATE_ACTIVE)
        return await done

    def _on_joint_states(self, message: JointState) -> None:
        if len(message.name) == len(message.position):
            self._joint_positions = dict(zip(message.name, message.position))

    def _on_odom(self, message: Odometry) -> None:
        stamp_s = message.header.stamp.sec + message.header.stamp.nanosec * 1e-9
        self._last_odom_wall = time.monotonic()
        active = self._active
        if active is None:
            return
        pose = message.pose.pose
        orientation = (pose.orientation.x, pose.orientation.y, pose.orientation.z, pose.orientation.w)
        if self._joint_positions is not None:
            x, y, yaw = self._body.body_pose((pose.position.x, pose.position.y, pose.position.z), orientation,
                                             self._joint_positions)
        else:
            self.get_logger().warning('no joint_states yet: steering on the head pose, which swings with the '
                                      'wave', once=True)
            x, y, yaw = pose.position.x, pose.position.y, yaw_from_quaternion(orientation)
        self._last_odom = (stamp_s, x, y, yaw)
        if active.handle.is_cancel_requested:
            self._finish(NavigateToPose.Result.CODE_CANCELED, 'cancelled', canceled=True)
            return
        if active.start_s is None:
            active.start_s = stamp_s
        status = active.controller.update(*self._last_odom)
        active.last_status = status
        self._publish_twist(status.twist)
        elapsed = stamp_s - active.start_s
        if status.phase == Phase.DONE:
            self._finish(NavigateToPose.Result.CODE_REACHED, 'reached')
        elif elapsed > self._goal_timeout_s:
            self._finish(NavigateToPose.Result.CODE_TIMED_OUT,
                         f'not reached within goal_timeout_s {self._goal_timeout_s:g} s', aborted=True)
        elif stamp_s - active.last_feedback_s >= self._feedback_period_s:
            active.last_feedback_s = stamp_s
            feedback = NavigateToPose.Feedback()
            feedback.current_pose = self._estimate_pose(active, message.header.stamp)
            feedback.distance_remaining_m = float(status.distance_m)
            feedback.heading_error_rad = float(status.heading_error_rad)
            feedback.navigation_time = duration_message(elapsed)
            active.handle.publish_feedback(feedback)
            self._publish_status(NavigationStatus.STATE_ACTIVE)

    def _housekeeping(self) -> None:
        active = self._active
        if active is None:
            return
        if active.handle.is_cancel_requested:
            self._finish(NavigateToPose.Result.CODE_CANCELED, 'cancelled', canceled=True)
        elif time.monotonic() - self._last_odom_wall > self._odom_timeout_s:
            self._finish(NavigateToPose.Result.CODE_NO_ODOMETRY,
                         f'no odom for {self._odom_timeout_s:g} s: is the odometry (or sim) running?', aborted=True)

    def _finish(self, code: int, text: str, aborted: bool = False, canceled: bool = False) -> None:
        """End the active goal: a zero twist unless it was reached (its stop already ran), the result."""
        active = self._active
        if active is None:
            return
        if code != NavigateToPose.Result.CODE_REACHED:
            self._publish_twist(Twist2D())
        result = NavigateToPose.Result(code=code, message=text)
        status = active.last_status
        if status is not None:
            result.distance_remaining_m = float(status.distance_m)
            result.heading_error_rad = float(status.heading_error_rad)
        if self._last_odom is not None and active.start_s is not None:
            result.navigation_time = duration_message(self._last_odom[0] - active.start_s)
        state = NavigationStatus.STATE_SUCCEEDED
        if canceled:
            active.handle.canceled()
            state = NavigationStatus.STATE_CANCELED
        elif aborted:
            active.handle.abort()
            state = NavigationStatus.STATE_ABORTED
        else:
            active.handle.succeed()
        self._publish_status(state)
        self._active = None
        self.get_logger().info(f'navigate_to_pose: {text} (distance {result.distance_remaining_m:.3f} m, '
                               f'heading error {math.degrees(result.heading_error_rad):.1f} deg)')
        active.done.set_result(result)

    def _estimate_pose(self, active: ActiveGoal, stamp: Any) -> PoseStamped:
        pose = PoseStamped()
        pose.header.stamp, pose.header.frame_id = stamp, self._frame
        estimate = active.controller.filter.estimate()
        if estimate is not None:
            pose.pose = planar_pose(*estimate)
        return pose

    def _publish_twist(self, twist: Twist2D) -> None:
        message = Twist()
        message.linear.y, message.angular.z = float(twist.lateral_m_s), float(twist.angular_rad_s)
        self._cmd_vel.publish(message)

    def _publish_status(self, state: int) -> None:
        active = self._active
        if active is None:
            return
        message = NavigationStatus(state=state, goal=active.goal, mode=active.mode)
        message.header.frame_id = self._frame
        if self._last_odom is not None:
            stamp_s = self._last_odom[0]
            message.header.stamp.sec = int(stamp_s)
            message.header.stamp.nanosec = int(round((stamp_s - int(stamp_s)) * 1e9)) % 1_000_000_000
        estimate = active.controller.filter.estimate()
        if estimate is not None:
            message.estimate = planar_pose(*estimate)
        status = active.last_status
        if status is not None:
            message.distance_remaining_m = float(status.distance_m) if math.isfinite(status.distance_m) else 0.0
            message.heading_error_rad = float(status.heading_error_rad) \
                if math.isfinite(status.heading_error_rad) else 0.0
            message.cmd_vel.linear.y = float(status.twist.lateral_m_s)
            message.cmd_vel.angular.z = float(status.twist.angular_rad_s)
        self._status.publish(message)


def main(args: list[str] | None = None) -> int:
    return run_node(NavigateNode, args)


if __name__ == '__main__':
    raise SystemExit(main())
