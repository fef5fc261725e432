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

"""Package for launch_description_sources."""

from .any_launch_description_source import AnyLaunchDescriptionSource
from .any_launch_file_utilities import get_launch_description_from_any_launch_file
from .frontend_launch_description_source import FrontendLaunchDescriptionSource
from .frontend_launch_file_utilities import get_launch_description_from_frontend_launch_file
from .frontend_launch_file_utilities import InvalidFrontendLaunchFileError
from .python_launch_description_source import PythonLaunchDescriptionSource
from .python_launch_file_utilities import get_launch_description_from_python_launch_file
from .python_launch_file_utilities import InvalidPythonLaunchFileError
from .python_launch_file_utilities import load_python_launch_file_as_module
from ..invalid_launch_file_error import InvalidLaunchFileError

__all__ = [
    'get_launch_description_from_any_launch_file',
    'get_launch_description_from_python_launch_file',
    'get_launch_description_from_frontend_launch_file',
    'InvalidFrontendLaunchFileError',
    'InvalidLaunchFileError',
    'InvalidPythonLaunchFileError',
    'load_python_launch_file_as_module',
    'AnyLaunchDescriptionSource',
    'FrontendLaunchDescriptionSource',
    'PythonLaunchDescriptionSource',
]
