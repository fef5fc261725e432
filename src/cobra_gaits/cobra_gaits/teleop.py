"""Keyboard teleop for pip mode (no teleop_twist_keyboard there): python -m cobra_gaits.teleop.

Keys follow teleop_twist_keyboard's holonomic layout where a snake can follow them: a sidewinder
moves sideways (linear.y) and turns (angular.z), never along its body axis.

    J / L   sidewind left / right (linear.y +/-)      j / l   turn left / right (angular.z +/-)
    U / O   sidewind left / right turning left         M / >   ... turning right
    k or space   stop (zero twist)
    w / x   speeds x 1.1 / x 0.9                       Q or Ctrl-C   stop and quit

A key sets the command, which is sent every `period_s` until another key changes it (a terminal
sees no key release, and the gait node ramps down after cmd_vel_timeout_s without a twist:
holding a key would stall between key repeats). Quitting sends a zero twist.
"""

from __future__ import annotations

import argparse
import math
import os
import select
import sys
import termios
import time
import tty
from dataclasses import dataclass

HELP = __doc__.split('\n\n')[1]
LATERAL_KEYS = {'J': (1, 0), 'L': (-1, 0), 'j': (0, 1), 'l': (0, -1), 'U': (1, 1), 'O': (-1, 1),
                'M': (1, -1), '>': (-1, -1)}
STOP_KEYS = ('k', ' ')
QUIT_KEYS = ('Q', '\x03')  # Ctrl-C arrives as a character in cbreak mode with ISIG off
DEFAULT_LATERAL_M_S = 0.06
DEFAULT_ANGULAR_RAD_S = 0.06


@dataclass
class TeleopState:
    """What the keys have set: directions (-1, 0, 1) and the speeds they scale."""

    lateral_m_s: float = DEFAULT_LATERAL_M_S
    angular_rad_s: float = DEFAULT_ANGULAR_RAD_S
    lateral_sign: int = 0
    angular_sign: int = 0
    quit: bool = False

    def press(self, key: str) -> bool:
        """Apply one key; True if it changed something."""
        if key in LATERAL_KEYS:
            self.lateral_sign, self.angular_sign = LATERAL_KEYS[key]
        elif key in STOP_KEYS:
            self.lateral_sign = self.angular_sign = 0
        elif key == 'w':
            self.lateral_m_s, self.angular_rad_s = self.lateral_m_s * 1.1, self.angular_rad_s * 1.1
        elif key == 'x':
            self.lateral_m_s, self.angular_rad_s = self.lateral_m_s * 0.9, self.angular_rad_s * 0.9
        elif key in QUIT_KEYS:
            self.lateral_sign = self.angular_sign = 0
            self.quit = True
        else:
            return False
        return True

    def twist(self) -> tuple[float, float]:
        """(linear.y [m/s], angular.z [rad/s]) to send."""
        return self.lateral_sign * self.lateral_m_s, self.angular_sign * self.angular_rad_s

    def line(self) -> str:
        lateral, angular = self.twist()
        return (f'linear.y {lateral:+.3f} m/s  angular.z {angular:+.3f} rad/s  '
                f'(speeds {self.lateral_m_s:.3f} m/s, {self.angular_rad_s:.3f} rad/s)')


def parse_arguments(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog='python -m cobra_gaits.teleop', description=HELP,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--topic', default='cmd_vel',
                        help='Twist topic (default cmd_vel; namespace it for a namespaced run)')
    parser.add_argument('--period', type=float, default=0.1, help='resend period [s] (default 0.1)')
    parser.add_argument('--lateral', type=float, default=DEFAULT_LATERAL_M_S, help='initial sideways speed [m/s]')
    parser.add_argument('--angular', type=float, default=DEFAULT_ANGULAR_RAD_S, help='initial turn rate [rad/s]')
    arguments = parser.parse_args(argv)
    for name in ('period', 'lateral', 'angular'):
        value = getattr(arguments, name)
        if not (math.isfinite(value) and value > 0.0):
            parser.error(f'--{name} must be a positive number, got {value}')
    return arguments


def main(argv: list[str] | None = None) -> int:
    arguments = parse_arguments(sys.argv[1:] if argv is None else argv)
    if not os.isatty(sys.stdin.fileno()):
        print('error: teleop reads keys from a terminal: run it in one (or use teleop_twist_keyboard)',
              file=sys.stderr)
        return 2
    import rclpy
    from geometry_msgs.msg import Twist
    from rclpy.duration import Duration
    from rclpy.qos import QoSProfile, ReliabilityPolicy

    rclpy.init()
    node = rclpy.create_node('teleop')
    publisher = node.create_publisher(Twist, arguments.topic,
                                      QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE))
    state = TeleopState(arguments.lateral, arguments.angular)

    def send() -> None:
        message = Twist()
        message.linear.y, message.angular.z = state.twist()
        publisher.publish(message)

    saved = termios.tcgetattr(sys.stdin)
    print(HELP + '\n', flush=True)
    try:
        tty.setcbreak(sys.stdin.fileno())
        attributes = termios.tcgetattr(sys.stdin)
        attributes[3] &= ~termios.ISIG  # Ctrl-C as a key: always leave through the zero twist below
        termios.tcsetattr(sys.stdin, termios.TCSADRAIN, attributes)
        next_send = 0.0
        while not state.quit:
            readable, _, _ = select.select([sys.stdin], [], [], max(next_send - time.monotonic(), 0.0))
            if readable:
                key = os.read(sys.stdin.fileno(), 1).decode(errors='replace')
                if state.press(key):
                    print(f'\r{state.line()}\x1b[K', end='', flush=True)
                    next_send = 0.0
            if time.monotonic() >= next_send:
                send()
                next_send = time.monotonic() + arguments.period
    finally:
        termios.tcsetattr(sys.stdin, termios.TCSADRAIN, saved)
        state.lateral_sign = state.angular_sign = 0
        send()
        publisher.wait_for_all_acked(Duration(seconds=1.0))  # the zero twist reaches the gait before we go
        print('\nstopped (zero twist sent)', flush=True)
        node.destroy_node()
        rclpy.try_shutdown()
    return 0


if __name__ == '__main__':
    raise SystemExit(main())
