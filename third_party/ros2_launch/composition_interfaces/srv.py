"""The one service type launch_ros names at import time (see the package docstring)."""


class LoadNode:
    """composition_interfaces/srv/LoadNode: names only; no composable node is ever loaded here."""

    class Request:
        def __init__(self, *args: object, **kwargs: object) -> None:
            raise NotImplementedError('composition_interfaces is a stand-in: COBRA loads no composable nodes')

    class Response:
        pass
