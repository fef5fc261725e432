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

"""Package for events."""

from . import process
from .execution_complete import ExecutionComplete
from .include_launch_description import IncludeLaunchDescription
from .matchers import matches_action
from .shutdown import Shutdown
from .timer_event import TimerEvent

__all__ = [
    'matches_action',
    'process',
    'ExecutionComplete',
    'IncludeLaunchDescription',
    'Shutdown',
    'TimerEvent',
]
