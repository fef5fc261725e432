"""Stand-in for ROS 2's composition_interfaces (a message package with no PyPI wheel).

launch_ros imports `composition_interfaces.srv` at import time for its LoadComposableNodes action
and evaluates `LoadNode.Request` in annotations; the COBRA launch files load no composable
nodes, so these names only have to exist. Calling the service would fail loudly.
"""
