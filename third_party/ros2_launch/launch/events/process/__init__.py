# Copyright 2018 Open Source Robotics Foundation, Inc.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

"""Package for launch.events.process."""

from .process_exited import ProcessExited
from .process_io import ProcessIO
from .process_matchers import matches_executable
from .process_matchers import matches_name
from .process_matchers import matches_pid
from .process_started import ProcessStarted
from .process_stderr import ProcessStderr
from .process_stdin import ProcessStdin
from .process_stdout import ProcessStdout
from .process_targeted_event import ProcessTargetedEvent
from .running_process_event import RunningProcessEvent
from .shutdown_process import ShutdownProcess
from .signal_process import SignalProcess

__all__ = [
    'matches_executable',
    'matches_name',
    'matches_pid',
    'ProcessExited',
    'ProcessIO',
    'ProcessStarted',
    'ProcessStderr',
    'ProcessStdin',
    'ProcessStdout',
    'ProcessTargetedEvent',
    'RunningProcessEvent',
    'ShutdownProcess',
    'SignalProcess',
]
