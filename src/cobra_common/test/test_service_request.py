"""A request whose reply was lost is sent again until answered, and an answered one never.
A real rclpy client and server in one process; the lost reply is made by the client forgetting
its first send (as rclpy does when rmw drops the reply, nothing ever completes that future)."""

from __future__ import annotations

from rclpy.action import ActionClient, ActionServer, CancelResponse, GoalResponse
from std_srvs.srv import SetBool

from cobra_common.ros_testing import spin_until
from cobra_common.service_request import ResendingGoal, ResendingRequest
from cobra_interfaces.action import NavigateToPose


class FakeClock:
    def __init__(self) -> None:
        self.now_s = 0.0

    def __call__(self) -> float:
        return self.now_s


def test_an_unanswered_request_is_sent_again_until_answered(ros_node):
    seen: list[bool] = []

    def serve(request: SetBool.Request, response: SetBool.Response) -> SetBool.Response | None:
        seen.append(request.data)
        response.success, response.message = True, f'answer {len(seen)}'
        return response

    ros_node.create_service(SetBool, 'latch/set', serve)
    client = ros_node.create_client(SetBool, 'latch/set')
    assert client.wait_for_service(timeout_sec=30.0)
    clock = FakeClock()
    pending = ResendingRequest(client, SetBool.Request(data=True), resend_after_s=1.0, clock_s=clock)
    # the first send's answer is made to vanish as a lost reply would: rclpy forgets that future
    client.remove_pending_request(pending._future)
    assert spin_until(ros_node, lambda: len(seen) == 1, 30.0)
    assert pending.poll() is None and pending.sends == 1  # unanswered, but not yet due again
    clock.now_s = 1.0
    assert pending.poll() is None and pending.sends == 2
    answer = pending.spin_until_answered(ros_node, 30.0)
    assert answer.success and answer.message == 'answer 2' and seen == [True, True]
    clock.now_s = 5.0
    assert pending.poll().message == 'answer 2' and pending.sends == 2  # answered: never resent


def test_a_goal_whose_acceptance_was_lost_is_sent_again_and_the_newest_answer_counts(ros_node):
    received: list[float] = []

    def on_goal(goal: NavigateToPose.Goal) -> GoalResponse:
        received.append(goal.pose.pose.position.x)
        return GoalResponse.ACCEPT

    def execute(handle):   # never finishes on its own: the test only needs the acceptance
        handle.abort()
        return NavigateToPose.Result()

    server = ActionServer(ros_node, NavigateToPose, 'navigate_to_pose', execute_callback=execute,
                          goal_callback=on_goal, cancel_callback=lambda _: CancelResponse.ACCEPT)
    client = ActionClient(ros_node, NavigateToPose, 'navigate_to_pose')
    try:
        assert client.wait_for_server(timeout_sec=30.0)
        goal = NavigateToPose.Goal()
        goal.pose.pose.position.x = 0.8
        clock = FakeClock()
        pending = ResendingGoal(client, goal, resend_after_s=1.0, clock_s=clock)
        # the first acceptance vanishes as a dropped reply would: the client forgets that it asked
        # (rclpy's private maps; with the reply dropped by rmw nothing would ever reach them)
        client._pending_goal_requests.clear()
        client._goal_sequence_number_to_goal_id.clear()
        assert spin_until(ros_node, lambda: len(received) == 1, 30.0)
        assert pending.poll() is None and pending.sends == 1
        clock.now_s = 1.0
        assert pending.poll() is None and pending.sends == 2
        handle = pending.spin_until_answered(ros_node, 30.0)
        assert handle.accepted and received == [0.8, 0.8]
        clock.now_s = 5.0
        assert pending.poll() is handle and pending.sends == 2   # answered: never resent
    finally:
        client.destroy()
        server.destroy()

