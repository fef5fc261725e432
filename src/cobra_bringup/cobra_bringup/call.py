"""Call one of the stack's services from a shell where there is no `ros2 service call` (pip mode).

    python -m cobra_bringup.call tumble/start
    python -m cobra_bringup.call latch/set true
    python -m cobra_bringup.call gait/stop --namespace cobra

Takes std_srvs/Trigger and std_srvs/SetBool services (every service of the stack is one of the
two), finds the type on the ROS graph, prints the answer. Run it in the run's ROS domain
(ROS_DOMAIN_ID as the runner printed it). Exit 0 when the service answered success, 1 when it
answered failure, 2 for bad input or a service that is not there.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from cobra_common.errors import StartupError
from cobra_common.service_request import ResendingRequest

SERVICE_TYPES = {'std_srvs/srv/Trigger': 'Trigger', 'std_srvs/srv/SetBool': 'SetBool'}
TRUE_WORDS, FALSE_WORDS = ('true', '1', 'yes', 'on'), ('false', '0', 'no', 'off')
DISCOVERY_POLL_S = 0.05


def resolve(service: str, namespace: str) -> str:
    """The absolute service name: relative names resolve in `namespace` as the nodes' do."""
    if service.startswith('/'):
        return service
    prefix = '/' + namespace.strip('/') if namespace.strip('/') else ''
    return f'{prefix}/{service}'


def request_value(type_name: str, words: list[str], service: str) -> bool | None:
    """The SetBool data word as a bool (None for Trigger); StartupError naming the fix."""
    if type_name == 'Trigger':
        if words:
            raise StartupError(f'{service} is a std_srvs/Trigger service: it takes no value (got {words[0]!r})')
        return None
    if len(words) != 1 or words[0].lower() not in TRUE_WORDS + FALSE_WORDS:
        raise StartupError(f'{service} is a std_srvs/SetBool service: give true or false, '
                           f'e.g. python -m cobra_bringup.call {service} true')
    return words[0].lower() in TRUE_WORDS


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog='python -m cobra_bringup.call', description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('service', help='service name, e.g. tumble/start (relative names resolve in --namespace)')
    # optional: a Trigger takes none ('*' without a default made argparse call it required)
    parser.add_argument('value', nargs='?', default=None,
                        help='true | false for a SetBool service; none for a Trigger service')
    parser.add_argument('--namespace', default='', help="the run's namespace:= (default: none)")
    parser.add_argument('--timeout', type=float, default=5.0, help='seconds to wait for the service and its answer')
    options = parser.parse_args(argv)
    os.environ.setdefault('ROS_AUTOMATIC_DISCOVERY_RANGE', 'LOCALHOST')
    import rclpy
    from std_srvs.srv import SetBool, Trigger

    service = resolve(options.service, options.namespace)
    rclpy.init()
    node = rclpy.create_node('cobra_call')
    try:
        deadline = time.monotonic() + options.timeout
        types: list[str] = []
        while time.monotonic() < deadline and not types:
            types = dict(node.get_service_names_and_types()).get(service, [])
            if not types:
                rclpy.spin_once(node, timeout_sec=DISCOVERY_POLL_S)
        if not types:
            raise StartupError(f'no service {service} within {options.timeout:g} s in ROS_DOMAIN_ID '
                               f"{os.environ.get('ROS_DOMAIN_ID', '0')}: is the run up, and is this the "
                               f'domain the runner printed (and the namespace:= it used)?')
        type_name = SERVICE_TYPES.get(types[0])
        if type_name is None:
            raise StartupError(f'{service} has type {types[0]}: only std_srvs Trigger and SetBool are supported')
        value = request_value(type_name, [] if options.value is None else [options.value], options.service)
        client = node.create_client(Trigger if type_name == 'Trigger' else SetBool, service)
        if not client.wait_for_service(timeout_sec=max(deadline - time.monotonic(), 0.1)):
            raise StartupError(f'{service} did not become ready within {options.timeout:g} s')
        if value is None:  # a Trigger acts on each request: sent once
            future = client.call_async(Trigger.Request())
            rclpy.spin_until_future_complete(node, future, timeout_sec=max(deadline - time.monotonic(), 0.1))
            answer = future.result() if future.done() else None
        else:  # SetBool asks for a state: sent again while unanswered (a reply lost after discovery)
            answer = ResendingRequest(client, SetBool.Request(data=value)).spin_until_answered(
                node, max(deadline - time.monotonic(), 0.1))
        if answer is None:
            raise StartupError(f'{service} did not answer within {options.timeout:g} s')
    except StartupError as error:
        print(f'error: {error}', file=sys.stderr)
        return 2
    finally:
        node.destroy_node()
        rclpy.try_shutdown()
    print(f"{service}: {'success' if answer.success else 'refused'}: {answer.message}")
    return 0 if answer.success else 1


if __name__ == '__main__':
    raise SystemExit(main())
