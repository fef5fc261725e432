import pytest

from cobra_common.frames import frame_prefix_problem


@pytest.mark.parametrize('prefix', ['', 'cobra/', 'robot_2/arm/'])
def test_valid_prefixes(prefix):
    assert frame_prefix_problem(prefix) is None


@pytest.mark.parametrize('prefix', ['cobra', '/cobra/', 'co bra/', '2x/', 'cobra//'])
def test_invalid_prefixes_name_the_value_and_the_fix(prefix):
    message = frame_prefix_problem(prefix)
    assert message is not None and repr(prefix) in message and 'frame_prefix:=cobra/' in message
