# Copyright 2015 Open Source Robotics Foundation, Inc.
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

"""Main entry point for the `launch` package."""

from . import actions
from . import conditions
from . import descriptions
from . import events
from . import frontend
from . import logging
from . import substitutions
from .action import Action
from .condition import Condition
from .event import Event
from .event_handler import EventHandler
from .invalid_launch_file_error import InvalidLaunchFileError
from .launch_context import LaunchContext
from .launch_description import LaunchDescription
from .launch_description_entity import LaunchDescriptionEntity
from .launch_description_source import LaunchDescriptionSource
from .launch_introspector import LaunchIntrospector
from .launch_service import LaunchService
from .some_entities_type import SomeEntitiesType
from .some_entities_type import SomeEntitiesType_types_tuple
from .some_substitutions_type import SomeSubstitutionsType
from .some_substitutions_type import SomeSubstitutionsType_types_tuple
from .substitution import Substitution

__all__ = [
    'actions',
    'conditions',
    'descriptions',
    'events',
    'frontend',
    'logging',
    'substitutions',
    'Action',
    'Condition',
    'Event',
    'EventHandler',
    'InvalidLaunchFileError',
    'LaunchContext',
    'LaunchDescription',
    'LaunchDescriptionEntity',
    'LaunchDescriptionSource',
    'LaunchIntrospector',
    'LaunchService',
    'SomeEntitiesType',
    'SomeEntitiesType_types_tuple',
    'SomeSubstitutionsType',
    'SomeSubstitutionsType_types_tuple',
    'Substitution',
]
