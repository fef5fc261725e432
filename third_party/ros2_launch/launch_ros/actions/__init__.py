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

"""actions Module."""

from .composable_node_container import ComposableNodeContainer
from .lifecycle_node import LifecycleNode
from .lifecycle_transition import LifecycleTransition
from .load_composable_nodes import LoadComposableNodes
from .node import Node
from .push_ros_namespace import PushROSNamespace
from .push_ros_namespace import PushROSNamespace as PushRosNamespace
from .ros_timer import ROSTimer
from .ros_timer import ROSTimer as RosTimer
from .set_parameter import SetParameter
from .set_parameters_from_file import SetParametersFromFile
from .set_remap import SetRemap
from .set_ros_log_dir import SetROSLogDir
from .set_use_sim_time import SetUseSimTime


__all__ = [
    'ComposableNodeContainer',
    'LifecycleNode',
    'LifecycleTransition',
    'LoadComposableNodes',
    'Node',
    'PushROSNamespace',
    'PushRosNamespace',
    'ROSTimer',
    'RosTimer',
    'SetParameter',
    'SetParametersFromFile',
    'SetRemap',
    'SetROSLogDir',
    'SetUseSimTime'
]
