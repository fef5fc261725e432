"""ROS glue of the tumbling latch (`gait: tumble`): cobra_gaits.tumbling.TumbleMachine in the gait node.

The gait node plays a TumbleController as its gait source: `advance(dt)` runs one tick of the
state machine with the newest joint_states and latch/state, sends the latch/set and torque/set
requests it makes (call_async; the answers are picked up in a later tick, the executor is never
blocked), and publishes tumble/state (latched) on every change and `diagnostics` at 1 Hz and at
once on an abort. Services tumble/start, tumble/release, tumble/abort (std_srvs/Trigger);
gait/start and gait/stop keep their meaning for the sidewinding part (`ramp`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from sensor_msgs.msg import JointState
from std_msgs.msg import Bool, String
from std_srvs.srv import SetBool, Trigger

from cobra_common.ros_entry import StartupError, declare, describe
from cobra_common.service_request import ResendingRequest
from cobra_description.robot_model import Joint, RobotModel
from cobra_gaits.curl_pose import CurlPoseError, latch_gap
from cobra_gaits.presets import TUMBLE_GAIT  # noqa: F401 (re-exported for gait_node)
from cobra_gaits.sidewinding import GaitError, SidewindingGenerator
from cobra_gaits.tumbling import TumbleMachine, TumbleParams, TumbleState

STATE_QOS = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.TRANSIENT_LOCAL)
LATCH_STATE_QOS = STATE_QOS  # the sim/driver latch it, so a late subscriber gets the current state
JOINT_STATES_QOS = QoSProfile(depth=1, reliability=ReliabilityPolicy.BEST_EFFORT)  # only the newest matters
DIAGNOSTICS_PERIOD_S = 1.0
DIAGNOSTIC_NAME = 'gait_node: tumble'
TIMEOUT_RANGE_S = (0.1, 3600.0)


def declare_tumble_parameters(node: Node, gait: str, preset_names: Sequence[str]) -> dict[str, Any]:
    """Declare the tumble.* parameters (for every gait, so one params file fits all); StartupError
    for invalid values when gait is `tumble`."""
    defaults = TumbleParams()
    timeout_text = {
        'ramp_down_timeout_s': 'the sidewinding ramp must be down within this long',
        'curling_timeout_s': 'after the curl move ends, the measured joints must reach the curl pose '
                             'within this long, else abort "loop did not close"',
        'latching_timeout_s': 'latch/set true -> latch/state true within this long, else abort '
                              '"latch did not confirm"',
        'tumbling_timeout_s': 'tumbling longer than this releases by itself',
        'releasing_timeout_s': 'latch/set false -> latch/state false within this long, else abort',
        'uncurling_timeout_s': 'after the uncurl move ends, the measured joints must be straight within '
                               'this long, else abort',
    }
    specs = {f'tumble.{name}': (getattr(defaults, name), describe(
        f'{text} [s, node time]', read_only=True, float_range=TIMEOUT_RANGE_S))
             for name, text in timeout_text.items()}
    specs.update({
        'tumble.start_after_s': (0.0, describe(
            'start the sequence by itself after this long sidewinding [s, node time]; 0 = wait for '
            'tumble/start', read_only=True, float_range=(0.0, 3600.0))),
        'tumble.sidewinding_preset': ('gait1', describe(
            'gait:=tumble: the sidewinding preset (a name from preset_names) played before tumble/start',
            read_only=True)),
        'tumble.curl_speed_rad_s': (defaults.curl_speed_rad_s, describe(
            'peak joint speed of the curl, uncurl and abort moves [rad/s]; the URDF velocity limits '
            'cap it', read_only=True, float_range=(0.05, 10.0))),
        'tumble.joint_tolerance_rad': (defaults.joint_tolerance_rad, describe(
            'the loop counts as closed (and the body as straight) when every measured joint is this '
            'close to its target [rad]', read_only=True, float_range=(0.005, 1.0))),
        'tumble.closure_distance_m': (defaults.closure_distance_m, describe(
            'the loop counts as closed when the latch frames, by forward kinematics of the measured '
            'joints, are this close [m] (keep it under the latch capture distance)', read_only=True,
            float_range=(0.001, 0.2))),
        'tumble.sag_correction_gain_1_s': (defaults.sag_correction_gain_1_s, describe(
            'after the curl move, the held command integrates what the measured joints lack at this '
            'gain [1/s] (servos sag under the loop)', read_only=True, float_range=(0.01, 20.0))),
        'tumble.max_sag_correction_rad': (defaults.max_sag_correction_rad, describe(
            'largest sag correction added to a curl target [rad]', read_only=True, float_range=(0.001, 1.0))),
        'tumble.wave_amplitude_rad': (defaults.wave_amplitude_rad, describe(
            'tumbling: amplitude of a travelling mode-2 bend wave on the pitch joints [rad]; 0 = passive '
            '(hold the curl)', read_only=True, float_range=(0.0, 0.5))),
        'tumble.wave_frequency_hz': (defaults.wave_frequency_hz, describe(
            'tumbling: frequency of that wave [Hz]; its sign sets the direction it travels round the loop',
            read_only=True, float_range=(-3.0, 3.0))),
        'tumble.yaw_splay_rad': (0.0, describe(
            'yaw joints of the curl pose splayed by this (alternating) for a wider base [rad]; 0 = a '
            'planar loop', read_only=True, float_range=(0.0, 0.6))),
    })
    values = {name.removeprefix('tumble.'): value for name, value in declare(node, specs).items()}
    if gait != TUMBLE_GAIT:
        return values
    if values['sidewinding_preset'] not in preset_names:
        raise StartupError(f"tumble.sidewinding_preset '{values['sidewinding_preset']}' is not a sidewinding "
                           f'preset: choose one of {list(preset_names)}')
    try:
        tumble_params(values)
    except GaitError as error:
        raise StartupError(str(error)) from error
    return values


def tumble_params(values: dict[str, Any]) -> TumbleParams:
    return TumbleParams(**{name: float(values[name]) for name in TumbleParams.__dataclass_fields__}).validated()


def check_tumble_robot(model: RobotModel, joints: Sequence[Joint]) -> None:
    """GaitError unless the robot is one the tumbling latch can curl (COBRA: pitch and yaw joints)."""
    others = [j.name for j in joints if j.axis_kind not in ('pitch', 'yaw')]
    if others:
        raise GaitError(f"gait:=tumble curls COBRA (pitch and yaw joints) into its latched loop; the URDF "
                        f"'{model.name}' has other joints ({', '.join(others[:3])}{' ...' if len(others) > 3 else ''}): "
                        'use robot:=cobra (the COBRA URDF)')


class _SidewindingSwitch:
    """gait/start and gait/stop in tumble mode: resume sidewinding (from ready or aborted) / ramp it down."""

    def __init__(self, controller: TumbleController) -> None:
        self._controller = controller

    def start(self) -> None:
        success, message = self._controller.request('sidewind')
        if not success:
            self._controller.node.get_logger().warning(f'gait/start ignored: {message}')

    def stop(self) -> None:
        if self._controller.machine.state == TumbleState.SIDEWINDING:
            self._controller.machine.sidewinding.ramp.stop()


class TumbleController:
    """The gait node's source for `gait: tumble` (see the module doc)."""

    def __init__(self, node: Node, model: RobotModel, joints: Sequence[Joint],
                 sidewinding: SidewindingGenerator, values: dict[str, Any],
                 stamp_ns: Callable[[], int | None] = lambda: None) -> None:
        self.node = node
        # the gait's newest tick (its commands' stamp): diagnostics carry the gait's time, not the
        # wall clock, so a recorder that takes sim time from header stamps is not thrown forward
        self._stamp_ns = stamp_ns
        self.joint_names = [j.name for j in joints]
        try:
            self.machine = TumbleMachine.for_robot(model, joints, sidewinding, tumble_params(values),
                                                   values['yaw_splay_rad'])
        except CurlPoseError as error:
            raise StartupError(f'gait:=tumble: {error}') from error
        self.ramp = _SidewindingSwitch(self)
        self._measured_rad: np.ndarray | None = None
        self._joint_index: tuple[tuple[str, ...], np.ndarray | None] = ((), None)
        self._latch: bool | None = None
        self._latch_request: tuple[bool, ResendingRequest] | None = None  # idempotent: resent until answered
        self._torque_request: ResendingRequest | None = None
        self._published_state = ''

        self._state_pub = node.create_publisher(String, 'tumble/state', STATE_QOS)
        self._diagnostics_pub = node.create_publisher(DiagnosticArray, 'diagnostics', 10)
        self._latch_client = node.create_client(SetBool, 'latch/set')
        self._torque_client = node.create_client(SetBool, 'torque/set')
        node.create_subscription(Bool, 'latch/state', self._on_latch_state, LATCH_STATE_QOS)
        node.create_subscription(JointState, 'joint_states', self._on_joint_states, JOINT_STATES_QOS)
        for action in ('start', 'release', 'abort'):
            node.create_service(Trigger, f'tumble/{action}',
                                lambda request, response, action=action: self._on_service(action, response))
        node.create_timer(DIAGNOSTICS_PERIOD_S, self.publish_diagnostics)
        self._publish_state()
        curl_rad = self.machine.curl_pose_rad
        gap_m = latch_gap(model, dict(zip(self.joint_names, curl_rad.tolist())))[0]
        node.get_logger().info(
            'tumble: curl pose ' + ', '.join(f'{name} {angle:+.3f}' for name, angle in zip(self.joint_names, curl_rad))
            + f' rad (latch frames {gap_m * 1000:.2f} mm apart)')

    # ---- the gait source interface ----

    def advance(self, dt_s: float) -> None:
        self._collect_answers()
        self.machine.advance(dt_s, self._measured_rad, self._latch)
        self._send_requests()
        self._publish_state()

    def positions(self) -> np.ndarray:
        return self.machine.positions_rad

    # ---- inputs ----

    def _on_joint_states(self, message: JointState) -> None:
        names = tuple(message.name)
        if names != self._joint_index[0]:
            position = {name: i for i, name in enumerate(names)}
            index = np.array([position[n] for n in self.joint_names]) \
                if all(n in position for n in self.joint_names) else None
            self._joint_index = (names, index)
        index = self._joint_index[1]
        if index is not None and len(message.position) == len(names):
            self._measured_rad = np.asarray(message.position, dtype=float)[index]

    def _on_latch_state(self, message: Bool) -> None:
        self._latch = bool(message.data)

    def _on_service(self, action: str, response: Trigger.Response) -> Trigger.Response:
        response.success, response.message = self.request(action)
        return response

    def request(self, action: str) -> tuple[bool, str]:
        """tumble/<action> or gait/start ('sidewind'): ask the machine, act on its answer at once."""
        handler = {'start': self.machine.request_start, 'release': self.machine.request_release,
                   'abort': self.machine.request_abort, 'sidewind': self.machine.request_sidewind}[action]
        success, message = handler()
        self._send_requests()
        self._publish_state()
        return success, message

    # ---- outputs ----

    def _send_requests(self) -> None:
        latch_request, torque_request = self.machine.take_requests()
        if latch_request is not None:
            if self._latch_client.service_is_ready():
                if self._latch_request is not None:
                    self._latch_request[1].cancel()
                self._latch_request = (latch_request, ResendingRequest(self._latch_client, SetBool.Request(data=latch_request)))
            else:
                self.machine.latch_answered(latch_request, False, 'latch/set service not available')
                self.node.get_logger().error(f'latch/set {latch_request} not sent: no latch/set service')
        if torque_request is not None:
            if self._torque_client.service_is_ready():
                if self._torque_request is not None:
                    self._torque_request.cancel()
                self._torque_request = ResendingRequest(self._torque_client, SetBool.Request(data=torque_request))
            else:
                self.node.get_logger().error(f'torque/set {torque_request} not sent: no torque/set service')

    def _collect_answers(self) -> None:
        if self._latch_request is not None and (result := self._latch_request[1].poll()) is not None:
            engage = self._latch_request[0]
            self._latch_request = None
            self.machine.latch_answered(engage, result.success, result.message)
            if not result.success:
                self.node.get_logger().warning(f'latch/set {engage} refused: {result.message}')
        if self._torque_request is not None and (result := self._torque_request.poll()) is not None:
            self._torque_request = None
            if not result.success:
                self.node.get_logger().error(f'torque/set refused: {result.message}')

    def _publish_state(self) -> None:
        for event in self.machine.events:
            if event.startswith(TumbleState.ABORTED.value):
                self.node.get_logger().error(f'tumble {event}')
            else:
                self.node.get_logger().info(f'tumble -> {event}')
        self.machine.events.clear()
        text = self.machine.status_text
        if text != self._published_state:
            self._published_state = text
            self._state_pub.publish(String(data=text))
            if self.machine.state == TumbleState.ABORTED:
                self.publish_diagnostics()

    def publish_diagnostics(self) -> None:
        aborted = self.machine.state == TumbleState.ABORTED
        status = DiagnosticStatus(
            level=DiagnosticStatus.ERROR if aborted else DiagnosticStatus.OK, name=DIAGNOSTIC_NAME,
            message=self.machine.status_text, hardware_id='gait_node')
        status.values = [KeyValue(key='state', value=self.machine.state.value),
                         KeyValue(key='abort_reason', value=self.machine.abort_reason),
                         KeyValue(key='latch_state', value=str(self._latch).lower()),
                         KeyValue(key='joint_states_received', value=str(self._measured_rad is not None).lower())]
        message = DiagnosticArray(status=[status])
        stamp_ns = self._stamp_ns()
        if stamp_ns is not None:
            message.header.stamp.sec, message.header.stamp.nanosec = divmod(stamp_ns, 1_000_000_000)
        self._diagnostics_pub.publish(message)
