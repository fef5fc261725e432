"""navigate_node: the navigate_to_pose action over ROS against a kinematic sidewinder in this test
(odom out, cmd_vel in, stamped in its own time), so the node's loop, feedback, result, cancel and
goal checks are judged on the messages that arrived, not on timing."""

from __future__ import annotations

import math
import signal
import subprocess
import sys
import time

import pytest
import rclpy
from geometry_msgs.msg import Twist
from nav_msgs.msg import Odometry
from rclpy.action import ActionClient
from rclpy.qos import QoSProfile, ReliabilityPolicy

from cobra_common.service_request import ResendingGoal
from cobra_gaits.goal_controller import COBRA_TRAVEL_ANGLE_RAD
from cobra_interfaces.action import NavigateToPose
from cobra_interfaces.msg import NavigationStatus

RELIABLE = QoSProfile(depth=50, reliability=ReliabilityPolicy.RELIABLE)
DT = 0.02  # the fake robot's odometry period [s of its own time]


class FakeSnake:
    """Moves along its travel direction at the commanded lateral speed and turns at angular.z."""

    def __init__(self) -> None:
        self.x = self.y = self.heading = self.time = 0.0
        self.lateral = self.angular = 0.0
        self.twists: list[Twist] = []

    def on_twist(self, message: Twist) -> None:
        self.twists.append(message)
        self.lateral, self.angular = message.linear.y, message.angular.z

    def step(self) -> Odometry:
        side = 'left' if self.lateral >= 0.0 else 'right'
        travel = self.heading + COBRA_TRAVEL_ANGLE_RAD[side]
        self.x += abs(self.lateral) * math.cos(travel) * DT
        self.y += abs(self.lateral) * math.sin(travel) * DT
        self.heading += self.angular * DT
        self.time += DT
        message = Odometry()
        message.header.frame_id, message.child_frame_id = 'odom', 'base_link'
        message.header.stamp.sec = int(self.time)
        message.header.stamp.nanosec = int(round((self.time - int(self.time)) * 1e9)) % 1_000_000_000
        message.pose.pose.position.x, message.pose.pose.position.y = self.x, self.y
        message.pose.pose.orientation.z = math.sin(self.heading / 2)
        message.pose.pose.orientation.w = math.cos(self.heading / 2)
        return message


@pytest.fixture
def navigate(ros_env, ros_node):
    process = subprocess.Popen([sys.executable, '-m', 'cobra_gaits.navigate_node', '--ros-args',
                                '-p', 'settle_s:=0.5', '-p', 'odom_timeout_s:=30.0',
                                '-p', 'coast_m:=0.0'], env=ros_env)  # the fake stops at once
    snake = FakeSnake()
    ros_node.create_subscription(Twist, 'cmd_vel', snake.on_twist, RELIABLE)
    odom = ros_node.create_publisher(Odometry, 'odom', RELIABLE)
    statuses: list[NavigationStatus] = []
    ros_node.create_subscription(NavigationStatus, 'navigation/status', statuses.append, RELIABLE)
    client = ActionClient(ros_node, NavigateToPose, 'navigate_to_pose')
    assert client.wait_for_server(timeout_sec=30.0)
    try:
        yield snake, odom, client, statuses
    finally:
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=15) == 0


def goal(x: float, y: float, mode: int = NavigateToPose.Goal.MODE_POSITION, frame: str = 'odom',
         yaw: float = 0.0) -> NavigateToPose.Goal:
    request = NavigateToPose.Goal(mode=mode)
    request.pose.header.frame_id = frame
    request.pose.pose.position.x, request.pose.pose.position.y = x, y
    request.pose.pose.orientation.z, request.pose.pose.orientation.w = math.sin(yaw / 2), math.cos(yaw / 2)
    return request


def spin_odometry(node, snake: FakeSnake, odom, until, timeout_s: float = 120.0) -> None:
    """Publish the fake odometry and spin, each odom step after the node answered the last one
    (its cmd_vel), so the loop runs as in lockstep whatever the machine's load."""
    deadline = time.monotonic() + timeout_s
    while not until() and time.monotonic() < deadline:
        answered = len(snake.twists)
        odom.publish(snake.step())
        step_deadline = time.monotonic() + 2.0
        while len(snake.twists) == answered and time.monotonic() < step_deadline and not until():
            rclpy.spin_once(node, timeout_sec=0.01)
    assert until(), 'timed out'


def test_goal_is_reached_with_feedback_result_and_status(ros_node, navigate):
    snake, odom, client, statuses = navigate
    feedback: list[NavigateToPose.Feedback] = []
    sending = ResendingGoal(client, goal(0.8, 0.8), feedback_callback=lambda f: feedback.append(f.feedback))
    spin_odometry(ros_node, snake, odom, lambda: sending.poll() is not None)
    handle = sending.poll()
    assert handle.accepted
    result_future = handle.get_result_async()
    spin_odometry(ros_node, snake, odom, result_future.done, timeout_s=300.0)
    result = result_future.result().result
    assert result.code == NavigateToPose.Result.CODE_REACHED
    # the fake robot here integrates cmd_vel on this test process's loop, outside any lockstep: on a
    # loaded machine a late twist moves it on (0.13 m measured); the 0.1 m precision of the goal
    # loop itself is asserted on the engine by cobra_experiments test_cmd_vel_runs
    assert math.hypot(snake.x - 0.8, snake.y - 0.8) < 0.2
    assert len(feedback) > 10 and feedback[0].distance_remaining_m > feedback[-1].distance_remaining_m
    assert statuses[0].state == NavigationStatus.STATE_ACTIVE and statuses[0].goal.pose.position.x == 0.8
    spin_odometry(ros_node, snake, odom, lambda: statuses[-1].state == NavigationStatus.STATE_SUCCEEDED)
    assert snake.twists[-1].linear.y == 0.0 and snake.twists[-1].angular.z == 0.0


def test_cancel_stops_with_a_zero_twist(ros_node, navigate):
    snake, odom, client, statuses = navigate
    sending = ResendingGoal(client, goal(-2.0, 2.0))
    spin_odometry(ros_node, snake, odom, lambda: sending.poll() is not None)
    handle = sending.poll()
    spin_odometry(ros_node, snake, odom, lambda: len(snake.twists) > 50 and snake.lateral != 0.0)
    cancelled = handle.cancel_goal_async()
    result_future = handle.get_result_async()

    def stopped() -> bool:  # the result and the zero twist travel apart: either may arrive first
        return (cancelled.done() and result_future.done() and statuses[-1].state == NavigationStatus.STATE_CANCELED
                and snake.twists[-1].linear.y == 0.0 and snake.twists[-1].angular.z == 0.0)
    spin_odometry(ros_node, snake, odom, stopped)
    assert result_future.result().result.code == NavigateToPose.Result.CODE_CANCELED


def test_goal_in_another_frame_or_non_finite_is_rejected(ros_node, navigate):
    snake, odom, client, _ = navigate
    for request in (goal(1.0, 0.0, frame='map'), goal(math.nan, 0.0)):
        sending = ResendingGoal(client, request)
        spin_odometry(ros_node, snake, odom, lambda: sending.poll() is not None)
        assert not sending.poll().accepted


@pytest.mark.parametrize(('override', 'text'), [('robot:=worm', "'robot'"), ('odom_timeout_s:=0.0', 'odom_timeout_s'),
                                                ('frame_prefix:=cobra', 'is not a frame prefix')])
def test_bad_parameters_end_the_node_with_one_message_and_exit_2(ros_env, override: str, text: str) -> None:
    result = subprocess.run([sys.executable, '-m', 'cobra_gaits.navigate_node', '--ros-args', '-p', override],
                            env=ros_env, capture_output=True, text=True, timeout=120)
    output = result.stdout + result.stderr
    assert result.returncode == 2, output
    assert 'Traceback' not in output and text in output, output
